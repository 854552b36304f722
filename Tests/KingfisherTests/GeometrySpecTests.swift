import Foundation
import Testing
@testable import Kingfisher

@Suite struct GeometryPlacingProcessorTests {
    typealias Images = GeometryTestImages
    let options = KingfisherParsedOptionsInfo(nil)
    let retina = KingfisherParsedOptionsInfo([.scaleFactor(2)])

    @Test func rectCroppingCountsSourcePixels() throws {
        let image = Images.quadrants(width: 40, height: 20)
        let result = try #require(RectCroppingImageProcessor(rect: CGRect(x: 20, y: 10, width: 30, height: 30))
            .process(item: .image(image), options: retina))
        #expect(result.pixelWidth == 20 && result.pixelHeight == 10 && result.scale == 2)
        #expect(result.frames[0].pixels == TestImages.solid(width: 20, height: 10, Images.white).frames[0].pixels)
    }

    @Test func gravityCroppingPlacesTheCrop() throws {
        let image = Images.quadrants(width: 40, height: 20)
        let result = try #require(GravityCroppingImageProcessor(size: CGSize(width: 5, height: 2.5), gravity: .southEast)
            .process(item: .image(image), options: retina))
        #expect(result.pixelWidth == 10 && result.pixelHeight == 5 && result.scale == 2)
        #expect(result.frames[0].pixels == TestImages.solid(width: 10, height: 5, Images.white).frames[0].pixels)
        let larger = try #require(GravityCroppingImageProcessor(size: CGSize(width: 100, height: 10), gravity: .north)
            .process(item: .image(image), options: options))
        #expect(larger.pixelWidth == 40 && larger.pixelHeight == 10 && larger.firstFrame.pixel(x: 39, y: 9) == Images.green)
        #expect(GravityCroppingImageProcessor(size: CGSize(width: 0, height: 10)).process(item: .image(image), options: options) == nil)
    }

    /// Smart gravity crops where the subject is, as the smart crop finds it, in cropTo and in fill.
    @Test func smartGravityFollowsTheSubject() throws {
        let image = KFCrossPlatformImage(frame: Images.painted(width: 90, height: 30) { x, y in
            x >= 64 && x < 84 && y >= 5 && y < 25
                ? ((x / 2 + y / 2) % 2 == 0 ? Images.red : RGBA8(r: 255, g: 220, b: 0, a: 255))
                : RGBA8(r: 128, g: 128, b: 128, a: 255)
        })
        let expected = image.smartCropRect(width: 30, height: 30)
        #expect(expected.minX >= 54)
        let cropped = try #require(GravityCroppingImageProcessor(size: CGSize(width: 30, height: 30), gravity: .smart)
            .process(item: .image(image), options: options))
        #expect(cropped == image.cropped(toPixelRect: expected))
        let filled = try #require(FittingImageProcessor(size: CGSize(width: 15, height: 15), mode: .fill, gravity: .smart)
            .process(item: .image(image), options: options))
        #expect(filled == image.cropped(toPixelRect: expected).resampled(toPixelWidth: 15, height: 15))
    }

    @Test func extendingGrowsTheCanvasOnly() throws {
        let image = TestImages.solid(width: 4, height: 2, Images.red)
        let result = try #require(ExtendingImageProcessor(size: CGSize(width: 10, height: 10), gravity: .southEast, background: .white)
            .process(item: .image(image), options: options))
        #expect(result.pixelWidth == 10 && result.pixelHeight == 10)
        #expect(result.firstFrame.pixel(x: 6, y: 8) == Images.red && result.firstFrame.pixel(x: 9, y: 9) == Images.red)
        #expect(result.firstFrame.pixel(x: 5, y: 8) == Images.white && result.firstFrame.pixel(x: 6, y: 7) == Images.white)
        // Offsets count in points: 1 point at scale 2 moves the image 2 pixels in from the corner.
        let moved = try #require(ExtendingImageProcessor(size: CGSize(width: 5, height: 5),
                                                         gravity: .compass(.southEast, xOffset: 1, yOffset: 1), background: .white)
            .process(item: .image(image), options: retina))
        #expect(moved.pixelWidth == 10 && moved.scale == 2 && moved.firstFrame.pixel(x: 4, y: 6) == Images.red)
        #expect(moved.firstFrame.pixel(x: 8, y: 7) == Images.white)
        // A canvas smaller than the image in a direction takes the image's side there.
        let narrow = try #require(ExtendingImageProcessor(size: CGSize(width: 2, height: 4), gravity: .north)
            .process(item: .image(image), options: options))
        #expect(narrow.pixelWidth == 4 && narrow.pixelHeight == 4 && narrow.firstFrame.pixel(x: 0, y: 1) == Images.red)
        #expect(narrow.firstFrame.pixel(x: 0, y: 2) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        let huge = ExtendingImageProcessor(size: CGSize(width: 1_000_000, height: 1_000_000))
        #expect(huge.process(item: .image(image), options: options) == nil)
    }

    @Test func paddingCountsPoints() throws {
        let image = TestImages.solid(width: 4, height: 2, Images.red)
        let result = try #require(PaddingImageProcessor(top: 1, right: 0, bottom: 0.5, left: 2, background: .blue)
            .process(item: .image(image), options: retina))
        #expect(result.pixelWidth == 8 && result.pixelHeight == 5 && result.scale == 2)
        #expect(result.firstFrame.pixel(x: 4, y: 2) == Images.red && result.firstFrame.pixel(x: 3, y: 2) == Images.blue)
        #expect(result.firstFrame.pixel(x: 4, y: 1) == Images.blue && result.firstFrame.pixel(x: 4, y: 4) == Images.blue)
        #expect(PaddingImageProcessor(top: -1, right: 0, bottom: 0, left: 0).process(item: .image(image), options: options) == nil)
    }

    @Test func processorsDecodeData() throws {
        let image = Images.marked(width: 6, height: 4, x: 0, y: 0)
        let png = try #require(image.kf.pngRepresentation())
        let processors: [(any ImageProcessor, [Int])] = [
            (FlippingImageProcessor(horizontal: true, vertical: true), [5, 3]),
            (RotatingImageProcessor(quarterTurns: 1), [3, 0]),
            (RectCroppingImageProcessor(rect: CGRect(x: 0, y: 0, width: 2, height: 2)), [0, 0]),
            (PaddingImageProcessor(top: 1, right: 0, bottom: 0, left: 1), [1, 1]),
            (ExtendingImageProcessor(size: CGSize(width: 8, height: 4), gravity: .east), [2, 0]),
            (GravityCroppingImageProcessor(size: CGSize(width: 3, height: 3), gravity: .northWest), [0, 0]),
            (ColorLevelsImageProcessor(contrast: 1, brightness: 0), [0, 0]),
            (GrayscaleImageProcessor(), [0, 0]),
        ]
        for (processor, white) in processors {
            let result = try #require(processor.process(item: .data(png), options: options), "\(processor.identifier)")
            #expect(Images.whitePixel(result) == white, "\(processor.identifier)")
            #expect(processor.process(item: .data(Data([0, 1])), options: options) == nil)
        }
    }

    @Test func identifiersNameEveryParameter() {
        let cases: [(any ImageProcessor, String)] = [
            (FittingImageProcessor(size: CGSize(width: 300, height: 0), mode: .fill, gravity: .compass(.north, xOffset: 0, yOffset: 5), allowsEnlarging: true),
             "com.onevcat.Kingfisher.FittingImageProcessor(size:(300.0, 0.0),mode:fill,gravity:north:0.0:5.0,allowsEnlarging:true)"),
            (RectCroppingImageProcessor(rect: CGRect(x: 1, y: 2, width: 3, height: 4)),
             "com.onevcat.Kingfisher.RectCroppingImageProcessor(rect:(1.0, 2.0, 3.0, 4.0))"),
            (GravityCroppingImageProcessor(size: CGSize(width: 5, height: 6), gravity: .focalPoint(x: 0.25, y: 1)),
             "com.onevcat.Kingfisher.GravityCroppingImageProcessor(size:(5.0, 6.0),gravity:fp:0.25:1.0)"),
            (ExtendingImageProcessor(size: CGSize(width: 5, height: 6), gravity: .smart, background: .red),
             "com.onevcat.Kingfisher.ExtendingImageProcessor(size:(5.0, 6.0),gravity:smart,background:(255,0,0,255))"),
            (PaddingImageProcessor(top: 1, right: 2, bottom: 3, left: 4),
             "com.onevcat.Kingfisher.PaddingImageProcessor(top:1.0,right:2.0,bottom:3.0,left:4.0,background:(0,0,0,0))"),
            (FlippingImageProcessor(horizontal: true, vertical: false), "com.onevcat.Kingfisher.FlippingImageProcessor(horizontal:true,vertical:false)"),
            (RotatingImageProcessor(quarterTurns: -1), "com.onevcat.Kingfisher.RotatingImageProcessor(quarterTurns:3)"),
            (ColorLevelsImageProcessor(contrast: 1.5, brightness: -10), "com.onevcat.Kingfisher.ColorLevelsImageProcessor(contrast:1.5,brightness:-10.0)"),
            (GrayscaleImageProcessor(), "com.onevcat.Kingfisher.GrayscaleImageProcessor"),
        ]
        for (processor, identifier) in cases {
            #expect(processor.identifier == identifier)
        }
    }
}

@Suite struct GeometrySpecTests {
    @Test func everyGeometrySpellingBuildsItsProcessor() throws {
        let cases: [(String, any ImageProcessor)] = [
            ("fit(300x200)", FittingImageProcessor(size: CGSize(width: 300, height: 200))),
            ("fit(300x0,fill)", FittingImageProcessor(size: CGSize(width: 300, height: 0), mode: .fill)),
            ("fit(300x200,fill,southEast:5:0.1,up)",
             FittingImageProcessor(size: CGSize(width: 300, height: 200), mode: .fill,
                                   gravity: .compass(.southEast, xOffset: 5, yOffset: 0.1), allowsEnlarging: true)),
            ("fit(0x200,Force,UP)", FittingImageProcessor(size: CGSize(width: 0, height: 200), mode: .force, allowsEnlarging: true)),
            ("fit(30x20,up)", FittingImageProcessor(size: CGSize(width: 30, height: 20), allowsEnlarging: true)),
            ("cropRect(1,2,30,40)", RectCroppingImageProcessor(rect: CGRect(x: 1, y: 2, width: 30, height: 40))),
            ("cropTo(30x40)", GravityCroppingImageProcessor(size: CGSize(width: 30, height: 40))),
            ("cropTo(30x40,fp:0.2:0.8)", GravityCroppingImageProcessor(size: CGSize(width: 30, height: 40), gravity: .focalPoint(x: 0.2, y: 0.8))),
            ("extend(30x40)", ExtendingImageProcessor(size: CGSize(width: 30, height: 40))),
            ("extend(30x40,west)", ExtendingImageProcessor(size: CGSize(width: 30, height: 40), gravity: .west)),
            ("extend(30x40,#FF0000)", ExtendingImageProcessor(size: CGSize(width: 30, height: 40), background: .red)),
            ("extend(30x40,smart,#FFFFFFFF)", ExtendingImageProcessor(size: CGSize(width: 30, height: 40), gravity: .smart, background: .white)),
            ("pad(1,2,3,4)", PaddingImageProcessor(top: 1, right: 2, bottom: 3, left: 4)),
            ("pad(1,2,3,4,#0000FF)", PaddingImageProcessor(top: 1, right: 2, bottom: 3, left: 4, background: .blue)),
            ("flip(h)", FlippingImageProcessor(horizontal: true, vertical: false)),
            ("flip(V)", FlippingImageProcessor(horizontal: false, vertical: true)),
            ("flip(hv)", FlippingImageProcessor(horizontal: true, vertical: true)),
            ("rotate(90)", RotatingImageProcessor(quarterTurns: 1)),
            ("rotate(270)", RotatingImageProcessor(quarterTurns: 3)),
            ("levels(1.44,-25)", ColorLevelsImageProcessor(contrast: 1.44, brightness: -25)),
            ("grayscale", GrayscaleImageProcessor()),
            ("GrayScale()", GrayscaleImageProcessor()),
            ("sharpen(1.5)", SharpeningImageProcessor(sigma: 1.5)),
            ("smartCrop(30x40)", SmartCroppingImageProcessor(size: CGSize(width: 30, height: 40))),
        ]
        for (text, expected) in cases {
            #expect(try ProcessorSpec(parsing: text).processor().identifier == expected.identifier, "\(text)")
        }
        let chain = try ProcessorSpec(parsing: "rotate(180)|>fit(100x100)|>grayscale").processor()
        #expect(chain.identifier == (RotatingImageProcessor(quarterTurns: 2) |> FittingImageProcessor(size: CGSize(width: 100, height: 100))
                                     |> GrayscaleImageProcessor()).identifier)
        #expect(ProcessorSpec.grammar.contains("cropTo(WxH[,GRAVITY])") && ProcessorSpec.grammar.contains("fp:X:Y"))
    }

    @Test(arguments: [
        ("fit()", "in 'fit()': takes 1 to 4 arguments: fit(WxH[,fit|fill|force][,GRAVITY][,up])"),
        ("fit(0x0)", "in 'fit(0x0)': the box must be WxH with numbers of 0 or more, one of them positive, got '0x0'"),
        ("fit(-3x10)", "the box must be WxH"),
        ("fit(30x20,cover)", "in 'fit(30x20,cover)': the gravity must be a compass name"),
        ("fit(30x20,up,fill)", "in 'fit(30x20,up,fill)': unexpected 'fill': fit(WxH[,fit|fill|force][,GRAVITY][,up])"),
        ("fit(30x20,fill,fit)", "unexpected 'fit'"),
        ("cropRect(1,2,3)", "in 'cropRect(1,2,3)': takes 4 arguments: cropRect(X,Y,W,H)"),
        ("cropRect(1,2,0,3)", "in 'cropRect(1,2,0,3)': the width must be positive"),
        ("cropRect(-1,2,3,3)", "in 'cropRect(-1,2,3,3)': x must not be negative"),
        ("cropRect(a,2,3,3)", "x must be a number, got 'a'"),
        ("cropTo(30x40,nort)", "got 'nort'; did you mean 'north'?"),
        ("cropTo(30x40,fp:1.5:0)", "got 'fp:1.5:0'"),
        ("cropTo(30x0)", "the size must be WxH with positive numbers, got '30x0'"),
        ("extend(30x40,#FF0000,north)", "the background comes after the gravity"),
        ("extend(30x40,north,red)", "the background must be a colour like #RRGGBBAA, got 'red'"),
        ("extend(30x40,north,#FF0000,1)", "takes 1 to 3 arguments"),
        ("pad(1,2,3)", "takes 4 to 5 arguments: pad(T,R,B,L[,#RRGGBBAA])"),
        ("pad(1,-2,3,4)", "the right must not be negative"),
        ("flip(x)", "in 'flip(x)': the direction must be h, v or hv, got 'x'"),
        ("rotate(45)", "in 'rotate(45)': the angle must be 90, 180 or 270, got '45'"),
        ("rotate()", "takes 1 argument: rotate(90|180|270)"),
        ("levels(1)", "takes 2 arguments: levels(C,B)"),
        ("levels(1,nan)", "the brightness must be a number, got 'nan'"),
        ("grayscale(1)", "takes 0 arguments: grayscale"),
        ("greyscale", "unknown processor 'greyscale' at column 1; did you mean 'grayscale'?"),
        ("frobnicate", "in 'frobnicate': unknown processor 'frobnicate' at column 1: the processors are downsample, resize, round, "
            + "crop, blur, tint, overlay, colorControls, blackWhite, border, blend, fit, cropRect, cropTo, extend, pad, flip, rotate, "
            + "levels, grayscale, sharpen, smartCrop"),
        ("sharpen(-1)", "in 'sharpen(-1)': the sigma must not be negative"),
        ("sharpen()", "takes 1 argument: sharpen(SIGMA)"),
        ("smartCrop(30)", "in 'smartCrop(30)': the size must be WxH with positive numbers, got '30'"),
        ("smartCrop(3x3,north)", "takes 1 argument: smartCrop(WxH)"),
    ])
    func badGeometryArgumentsSayWhatIsWrong(spec: String, expected: String) {
        do {
            _ = try ProcessorSpec(parsing: spec).processor()
            Issue.record("'\(spec)' built")
        } catch let error as ProcessorSpecError {
            #expect(error.description.contains(expected), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
