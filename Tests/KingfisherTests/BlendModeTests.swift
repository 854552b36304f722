import Foundation
import Testing
@testable import Kingfisher

/// The W3C Compositing and Blending formulas written out again, in Double, following the spec's
/// pseudo-code (sorted components for SetSat), to check the library against.
enum SpecFormulas {
    static func separable(_ mode: BlendMode, _ cb: Double, _ cs: Double) -> Double {
        func hardLight(_ b: Double, _ s: Double) -> Double {
            s <= 0.5 ? b * 2 * s : separable(.screen, b, 2 * s - 1)
        }
        switch mode {
        case .normal: return cs
        case .multiply: return cb * cs
        case .screen: return cb + cs - cb * cs
        case .overlay: return hardLight(cs, cb)
        case .darken: return min(cb, cs)
        case .lighten: return max(cb, cs)
        case .colorDodge: return cb == 0 ? 0 : (cs == 1 ? 1 : min(1, cb / (1 - cs)))
        case .colorBurn: return cb == 1 ? 1 : (cs == 0 ? 0 : 1 - min(1, (1 - cb) / cs))
        case .hardLight: return hardLight(cb, cs)
        case .softLight:
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        case .difference: return abs(cb - cs)
        case .exclusion: return cb + cs - 2 * cb * cs
        default: return .nan
        }
    }

    static func lum(_ c: [Double]) -> Double { 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2] }

    static func clipColor(_ c: [Double]) -> [Double] {
        let l = lum(c), n = c.min() ?? 0, x = c.max() ?? 0
        var c = c
        if n < 0 { c = c.map { l + ($0 - l) * l / (l - n) } }
        if x > 1 { c = c.map { l + ($0 - l) * (1 - l) / (x - l) } }
        return c
    }

    static func setLum(_ c: [Double], _ l: Double) -> [Double] {
        let d = l - lum(c)
        return clipColor(c.map { $0 + d })
    }

    static func sat(_ c: [Double]) -> Double { (c.max() ?? 0) - (c.min() ?? 0) }

    static func setSat(_ c: [Double], _ s: Double) -> [Double] {
        let order = [0, 1, 2].sorted { c[$0] < c[$1] }
        let (low, mid, high) = (order[0], order[1], order[2])
        var result = [0.0, 0, 0]
        if c[high] > c[low] {
            result[mid] = (c[mid] - c[low]) * s / (c[high] - c[low])
            result[high] = s
        }
        return result
    }

    static func mix(_ mode: BlendMode, _ cb: [Double], _ cs: [Double]) -> [Double] {
        switch mode {
        case .hue: return setLum(setSat(cs, sat(cb)), lum(cb))
        case .saturation: return setLum(setSat(cb, sat(cs)), lum(cb))
        case .color: return setLum(cs, lum(cb))
        case .luminosity: return setLum(cb, lum(cs))
        default: return (0..<3).map { separable(mode, cb[$0], cs[$0]) }
        }
    }

    /// Source and backdrop straight colours with alphas; the premultiplied result in bytes.
    static func blend(_ mode: BlendMode, source cs: [Double], _ sa: Double, backdrop cb: [Double], _ ba: Double) -> [Int] {
        let b = mix(mode, cb, cs)
        let ao = sa + ba - sa * ba
        let co = (0..<3).map { cs[$0] * sa * (1 - ba) + cb[$0] * ba * (1 - sa) + sa * ba * b[$0] }
        return (co + [ao]).map { Int(($0 * 255).rounded()) }
    }
}

@Suite struct BlendModeTests {
    static let pairs: [(source: [Double], backdrop: [Double])] = [
        ([0.2, 0.6, 0.9], [0.7, 0.3, 0.5]),
        ([0.9, 0.1, 0.4], [0.2, 0.2, 0.8]),
        ([0.0, 1.0, 0.5], [1.0, 0.0, 0.25]),
        ([0.5, 0.5, 0.5], [0.1, 0.9, 0.6]),
    ]

    func onePixel(_ c: [Double], alpha: Double) -> KFCrossPlatformImage {
        let a = (alpha * 255).rounded()
        func byte(_ v: Double) -> UInt8 { UInt8((v * a).rounded()) }
        return TestImages.solid(width: 1, height: 1, RGBA8(r: byte(c[0]), g: byte(c[1]), b: byte(c[2]), a: UInt8(a)))
    }

    func pixel(_ image: KFCrossPlatformImage) -> [Int] {
        image.firstFrame.pixels.map(Int.init)
    }

    func close(_ a: [Int], _ b: [Int], within tolerance: Int = 1) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// Straight components quantised as a byte image stores them, so both sides start equal.
    func quantised(_ c: [Double], alpha: Double) -> [Double] {
        let a = (alpha * 255).rounded()
        return c.map { ($0 * a).rounded() / a }
    }

    /// The straight components of `color` as its premultiplied bytes hold them.
    func stored(_ color: KFCrossPlatformColor) -> [Double] {
        let p = color.premultiplied
        let a = Double(max(p.a, 1))
        return [Double(p.r) / a, Double(p.g) / a, Double(p.b) / a]
    }

    @Test(arguments: BlendMode.allCases)
    func everyModeFollowsTheSpec(mode: BlendMode) {
        for (source, backdrop) in Self.pairs {
            for (sourceAlpha, backdropAlpha, opacity) in [(1.0, 1.0, 1.0), (0.6, 1.0, 1.0), (1.0, 0.5, 0.7), (0.8, 0.4, 0.5)] {
                let image = onePixel(source, alpha: sourceAlpha)
                let background = KFCrossPlatformColor(red: backdrop[0], green: backdrop[1], blue: backdrop[2],
                                                      alpha: backdropAlpha)
                let result = image.kf.image(withBlendMode: mode, alpha: opacity, backgroundColor: background)
                let cs = quantised(source, alpha: sourceAlpha)
                let cb = stored(background)
                let sa = (sourceAlpha * 255).rounded() / 255 * opacity
                let ba = (backdropAlpha * 255).rounded() / 255
                let expected = SpecFormulas.blend(mode, source: cs, sa, backdrop: cb, ba)
                #expect(close(pixel(result), expected),
                        "\(mode) \(source) α\(sourceAlpha)×\(opacity) on \(backdrop) α\(backdropAlpha): \(pixel(result)) vs \(expected)")
            }
        }
    }

    @Test func knownValues() {
        let orange = TestImages.solid(width: 1, height: 1, RGBA8(r: 255, g: 128, b: 0, a: 255))
        let grey = KFCrossPlatformColor(white: 128.0 / 255)
        #expect(pixel(orange.kf.image(withBlendMode: .multiply, backgroundColor: grey)) == [128, 64, 0, 255])
        #expect(pixel(orange.kf.image(withBlendMode: .screen, backgroundColor: grey)) == [255, 192, 128, 255])
        #expect(pixel(orange.kf.image(withBlendMode: .difference, backgroundColor: grey)) == [127, 0, 128, 255])
        #expect(pixel(orange.kf.image(withBlendMode: .normal, alpha: 0.5, backgroundColor: .black)) == [128, 64, 0, 255])
        // Luminosity of orange (0.3 + 0.59·0.502 = 0.596) put into a grey backdrop: a grey of that luminosity.
        #expect(close(pixel(orange.kf.image(withBlendMode: .luminosity, backgroundColor: grey)), [152, 152, 152, 255]))
    }

    @Test(arguments: BlendMode.allCases)
    func overATransparentCanvasEveryModeShowsTheImage(mode: BlendMode) {
        let image = TestImages.gradient(width: 6, height: 4, alpha: true)
        #expect(image.kf.image(withBlendMode: mode).firstFrame == image.firstFrame)
        let faded = image.kf.image(withBlendMode: mode, alpha: 0.5).firstFrame
        for (original, result) in zip(image.firstFrame.pixels, faded.pixels) {
            #expect(abs(Int(original) / 2 - Int(result)) <= 1)
        }
    }

    @Test func rawValuesAreCoreGraphicsOnes() {
        #expect(BlendMode.allCases.map(\.rawValue) == Array(0...15))
        #expect(BlendMode.multiply.rawValue == 1 && BlendMode.luminosity.rawValue == 15)
        #expect(CompositingOperation.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13])
    }

    @Test func identifiersEncodeEveryParameter() {
        let plain = BlendImageProcessor(blendMode: .screen)
        #expect(plain.identifier == "com.onevcat.Kingfisher.BlendImageProcessor(2,1.0)")
        let full = BlendImageProcessor(blendMode: .screen, alpha: 0.5, backgroundColor: .red)
        #expect(full.identifier == "com.onevcat.Kingfisher.BlendImageProcessor(2,0.5)_(255,0,0,255)")
        let variants = [plain, full, BlendImageProcessor(blendMode: .multiply),
                        BlendImageProcessor(blendMode: .screen, alpha: 0.4),
                        BlendImageProcessor(blendMode: .screen, alpha: 0.5, backgroundColor: .blue)]
        #expect(Set(variants.map(\.identifier)).count == variants.count)

        let compositing = CompositingImageProcessor(compositingOperation: .plusLighter, alpha: 0.25, backgroundColor: .white)
        #expect(compositing.identifier == "com.onevcat.Kingfisher.CompositingImageProcessor(13,0.25)_(255,255,255,255)")
        #expect(CompositingImageProcessor(compositingOperation: .copy).identifier
                == "com.onevcat.Kingfisher.CompositingImageProcessor(1,1.0)")
        #expect((plain |> compositing).identifier == plain.identifier + "|>" + compositing.identifier)
    }

    @Test func processorsDrawAtTheRequestedScale() throws {
        let image = TestImages.gradient(width: 8, height: 8)
        let options = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let processor = BlendImageProcessor(blendMode: .multiply, backgroundColor: .red)
        let result = try #require(processor.process(item: .image(image), options: options))
        #expect(result.scale == 2 && result.pixelWidth == 8)
        #expect(result.firstFrame == image.kf.image(withBlendMode: .multiply, backgroundColor: .red).firstFrame)
        let compositing = CompositingImageProcessor(compositingOperation: .xor, backgroundColor: .blue)
        let data = try image.encoded(as: .PNG)
        let composited = try #require(compositing.process(item: .data(data), options: options))
        #expect(composited.firstFrame == image.kf.image(withCompositingOperation: .xor, backgroundColor: .blue).firstFrame)
    }

    /// Porter-Duff factors (source, destination) for the operators that have them.
    func factors(_ op: CompositingOperation, sa: Double, da: Double) -> (Double, Double)? {
        switch op {
        case .clear: return (0, 0)
        case .copy: return (1, 0)
        case .sourceOver: return (1, 1 - sa)
        case .sourceIn: return (da, 0)
        case .sourceOut: return (1 - da, 0)
        case .sourceAtop: return (da, 1 - sa)
        case .destinationOver: return (1 - da, 1)
        case .destinationIn: return (0, sa)
        case .destinationOut: return (0, 1 - sa)
        case .destinationAtop: return (1 - da, sa)
        case .xor: return (1 - da, 1 - sa)
        case .plusDarker, .plusLighter: return nil
        }
    }

    @Test(arguments: CompositingOperation.allCases)
    func everyOperatorFollowsItsFormula(op: CompositingOperation) {
        for (source, backdrop) in Self.pairs {
            for (sourceAlpha, backdropAlpha, opacity) in [(1.0, 1.0, 1.0), (0.6, 1.0, 1.0), (1.0, 0.5, 0.7), (0.8, 0.4, 0.5), (0.3, 0.0, 1.0)] {
                let image = onePixel(source, alpha: sourceAlpha)
                let background = KFCrossPlatformColor(red: backdrop[0], green: backdrop[1], blue: backdrop[2],
                                                      alpha: backdropAlpha)
                let result = image.kf.image(withCompositingOperation: op, alpha: opacity, backgroundColor: background)
                let sa = (sourceAlpha * 255).rounded() / 255 * opacity
                let da = (backdropAlpha * 255).rounded() / 255
                let s = quantised(source, alpha: sourceAlpha).map { $0 * sa } + [sa]
                let d = stored(background).map { $0 * da } + [da]
                let expected: [Double]
                if let (fs, fd) = factors(op, sa: sa, da: da) {
                    expected = (0..<4).map { s[$0] * fs + d[$0] * fd }
                } else if op == .plusLighter {
                    expected = (0..<4).map { min(1, s[$0] + d[$0]) }
                } else {
                    let ao = min(1, sa + da)
                    expected = (0..<3).map { max(0, ao - (sa - s[$0]) - (da - d[$0])) } + [ao]
                }
                let bytes = expected.map { Int(($0 * 255).rounded()) }
                #expect(close(pixel(result), bytes), "\(op) α\(sourceAlpha)×\(opacity) on α\(backdropAlpha): \(pixel(result)) vs \(bytes)")
            }
        }
    }

    @Test func knownCompositingValues() {
        let source = TestImages.solid(width: 1, height: 1, RGBA8(r: 200, g: 100, b: 50, a: 255))
        let grey = KFCrossPlatformColor(white: 100.0 / 255)
        // Core Graphics' plus-darker on opaque pixels: max(0, 1 − ((1 − D) + (1 − S))) = S + D − 1.
        #expect(pixel(source.kf.image(withCompositingOperation: .plusDarker, backgroundColor: grey)) == [45, 0, 0, 255])
        #expect(pixel(source.kf.image(withCompositingOperation: .plusLighter, backgroundColor: grey)) == [255, 200, 150, 255])
        #expect(pixel(source.kf.image(withCompositingOperation: .destinationOver, backgroundColor: .red)) == [255, 0, 0, 255])
        #expect(pixel(source.kf.image(withCompositingOperation: .sourceIn)) == [0, 0, 0, 0])
        #expect(pixel(source.kf.image(withCompositingOperation: .clear, backgroundColor: .red)) == [0, 0, 0, 0])
        #expect(pixel(source.kf.image(withCompositingOperation: .plusDarker)) == [200, 100, 50, 255])
        let image = TestImages.gradient(width: 5, height: 3, alpha: true)
        #expect(image.kf.image(withCompositingOperation: .copy, backgroundColor: .red).firstFrame == image.firstFrame)
        #expect(image.kf.image(withCompositingOperation: .sourceOver).firstFrame == image.firstFrame)
    }

    @Test func animationsKeepFramesAndTiming() throws {
        let frames = [TestImages.gradientFrame(width: 6, height: 6).withDuration(0.2),
                      TestImages.gradientFrame(width: 6, height: 6, seed: 4).withDuration(0.4)]
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 1))
        for result in [animation.kf.image(withBlendMode: .overlay, backgroundColor: .blue),
                       animation.kf.image(withCompositingOperation: .sourceAtop, alpha: 0.5, backgroundColor: .green)] {
            #expect(result.frames.count == 2 && result.loopCount == 1 && result.frames.map(\.duration) == [0.2, 0.4])
            #expect(result.frames[0] != result.frames[1])
        }
    }

    @Test func largeImagesGiveThePixelsSmallOnesDo() throws {
        // Large frames go through per-alpha tables; single pixels are computed one by one.
        let frame = TestImages.gradientFrame(width: 80, height: 60, alpha: true, seed: 5)
        let image = KFCrossPlatformImage(frame: frame)
        let background = KFCrossPlatformColor(red: 0.3, green: 0.7, blue: 0.2, alpha: 0.8)
        let draws: [(KFCrossPlatformImage) -> KFCrossPlatformImage] = [
            { $0.kf.image(withBlendMode: .softLight, alpha: 0.8, backgroundColor: background) },
            { $0.kf.image(withBlendMode: .colorBurn, backgroundColor: background) },
            { $0.kf.image(withCompositingOperation: .xor, alpha: 0.6, backgroundColor: background) },
            { $0.kf.image(withCompositingOperation: .plusDarker, backgroundColor: background) },
        ]
        for draw in draws {
            let large = draw(image).firstFrame
            for (x, y) in [(0, 0), (17, 3), (40, 30), (79, 59), (63, 12)] {
                let color = try #require(frame.pixel(x: x, y: y))
                let single = draw(TestImages.solid(width: 1, height: 1, color)).firstFrame
                #expect(large.pixel(x: x, y: y) == single.pixel(x: 0, y: 0))
            }
        }
    }
}
