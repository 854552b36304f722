import Foundation
import Kingfisher
import Testing
@testable import KingfisherServer

/// thumbor's geometry, case by case. The expected steps were produced by thumbor 7.8.0 itself: its
/// `Transformer` and built-in filters run on an engine that records every crop, resize, flip, rotate
/// and paste (a fill's paste is written here as the crop and fill it amounts to).
@Suite struct ThumborGeometryTests {
    /// One case: a source size, the options of an `unsafe/` URL, the answer's size and the steps.
    struct GeometryCase: Sendable, CustomStringConvertible {
        let sourceWidth: Int, sourceHeight: Int, options: String, width: Int, height: Int, steps: String
        init(_ sourceWidth: Int, _ sourceHeight: Int, _ options: String, _ width: Int, _ height: Int, _ steps: String) {
            (self.sourceWidth, self.sourceHeight, self.options, self.width, self.height, self.steps) =
                (sourceWidth, sourceHeight, options, width, height, steps)
        }
        var description: String { "\(sourceWidth)x\(sourceHeight) /\(options)" }
    }

    static let cases: [GeometryCase] = [
        .init(800, 600, "", 800, 600, ""),
        .init(800, 600, "300x200", 300, 200, "crop 0,34,800,533 | scale 300,200"),
        .init(600, 800, "300x200", 300, 200, "crop 0,200,600,400 | scale 300,200"),
        .init(200, 100, "300x200", 300, 200, "crop 25,0,150,100 | scale 300,200"),
        .init(800, 600, "300x0", 300, 225, "scale 300,225"),
        .init(800, 600, "300x", 300, 225, "scale 300,225"),
        .init(800, 600, "0x200", 267, 200, "scale 267,200"),
        .init(800, 600, "x200", 267, 200, "scale 267,200"),
        .init(333, 777, "100x0", 100, 233, "scale 100,233"),
        .init(333, 777, "0x100", 43, 100, "scale 43,100"),
        .init(200, 100, "3x0", 3, 2, "crop 25,0,150,100 | scale 3,2"),
        .init(200, 100, "5x0", 5, 2, "crop 0,10,200,80 | scale 5,2"),
        .init(200, 100, "7x0", 7, 4, "crop 12,0,175,100 | scale 7,4"),
        .init(1000, 667, "300x200", 300, 200, "scale 300,200"),
        .init(1920, 1080, "1080x1920", 1080, 1920, "crop 656,0,608,1080 | scale 1080,1920"),
        .init(1920, 1080, "1080x1920/left", 1080, 1920, "crop 0,0,608,1080 | scale 1080,1920"),
        .init(1920, 1080, "1080x1920/right", 1080, 1920, "crop 1312,0,608,1080 | scale 1080,1920"),
        .init(600, 800, "300x200/center/top", 300, 200, "crop 0,0,600,400 | scale 300,200"),
        .init(600, 800, "300x200/bottom", 300, 200, "crop 0,400,600,400 | scale 300,200"),
        .init(800, 600, "300x300/right/bottom", 300, 300, "crop 200,0,600,600 | scale 300,300"),
        .init(800, 600, "300x200/smart", 300, 200, "crop 0,34,800,533 | scale 300,200"),
        .init(800, 600, "300x200/left/top/smart", 300, 200, "crop 0,0,800,533 | scale 300,200"),
        .init(800, 600, "fit-in/300x200", 267, 200, "scale 267,200"),
        .init(600, 800, "fit-in/300x200", 150, 200, "scale 150,200"),
        .init(200, 100, "fit-in/300x200", 200, 100, ""),
        .init(200, 100, "fit-in/5x5", 5, 3, "scale 5,3"),
        .init(333, 777, "fit-in/100x100", 43, 100, "scale 43,100"),
        .init(800, 600, "fit-in/300x0", 300, 225, "scale 300,225"),
        .init(800, 600, "fit-in/0x300", 400, 300, "scale 400,300"),
        .init(200, 100, "fit-in/0x300", 200, 100, ""),
        .init(800, 600, "full-fit-in/300x200", 300, 225, "scale 300,225"),
        .init(600, 800, "full-fit-in/300x200", 300, 400, "scale 300,400"),
        .init(200, 100, "full-fit-in/300x200", 400, 200, "scale 400,200"),
        .init(600, 800, "adaptive-fit-in/300x200", 200, 267, "scale 200,267"),
        .init(800, 600, "adaptive-fit-in/300x200", 267, 200, "scale 267,200"),
        .init(600, 800, "adaptive-full-fit-in/300x200", 225, 300, "scale 225,300"),
        .init(800, 600, "-300x200", 300, 200, "crop 0,34,800,533 | scale 300,200 | flip h"),
        .init(800, 600, "300x-200", 300, 200, "crop 0,34,800,533 | scale 300,200 | flip v"),
        .init(800, 600, "-300x-200", 300, 200, "crop 0,34,800,533 | scale 300,200 | flip hv"),
        .init(800, 600, "-x-", 800, 600, "flip hv"),
        .init(800, 600, "-0x-0", 800, 600, "flip hv"),
        .init(800, 600, "fit-in/-300x-200", 267, 200, "scale 267,200 | flip hv"),
        .init(800, 600, "origx200", 800, 200, "crop 0,200,800,200"),
        .init(800, 600, "300xorig", 300, 600, "crop 250,0,300,600"),
        .init(800, 600, "origxorig", 800, 600, ""),
        .init(800, 600, "fit-in/origx300", 400, 300, "scale 400,300"),
        .init(800, 600, "10x10:200x200", 190, 190, "crop 10,10,190,190"),
        .init(800, 600, "10x10:200x200/300x200", 300, 200, "crop 10,10,190,190 | crop 0,32,190,127 | scale 300,200"),
        .init(800, 600, "0x0:5000x5000/100x100", 100, 100, "crop 0,0,800,600 | crop 100,0,600,600 | scale 100,100"),
        .init(800, 600, "200x200:10x10/100x100", 100, 100, "crop 100,0,600,600 | scale 100,100"),
        .init(800, 600, "100x50:700x550/fit-in/200x200", 200, 167, "crop 100,50,600,500 | scale 200,167"),
        .init(800, 600, "100x100:500x300/100x0", 100, 50, "crop 100,100,400,200 | scale 100,50"),
        .init(200, 100, "300x200/filters:no_upscale()", 200, 100, ""),
        .init(200, 100, "fit-in/300x200/filters:no_upscale()", 200, 100, ""),
        .init(800, 600, "300x200/filters:no_upscale()", 300, 200, "crop 0,34,800,533 | scale 300,200"),
        .init(200, 100, "fit-in/300x200/filters:upscale()", 300, 150, "scale 300,150"),
        .init(200, 100, "fit-in/300x250/filters:upscale()", 300, 150, "scale 300,150"),
        .init(200, 100, "fit-in/250x300/filters:upscale()", 250, 125, "scale 250,125"),
        .init(800, 600, "fit-in/300x200/filters:fill(white)", 300, 200, "scale 267,200 | fill 300,200,16,0,#ffffffff"),
        .init(600, 800, "fit-in/300x200/filters:fill(white)", 300, 200, "scale 150,200 | fill 300,200,75,0,#ffffffff"),
        .init(200, 100, "fit-in/300x200/filters:fill(red)", 300, 200, "fill 300,200,50,50,#ff0000ff"),
        .init(800, 600, "fit-in/300x200/filters:fill(transparent,true)", 300, 200, "scale 267,200 | fill 300,200,16,0,#00000000 blend"),
        .init(200, 100, "fit-in/0x300/filters:fill(red)", 200, 300, "fill 200,300,0,100,#ff0000ff"),
        .init(800, 600, "fit-in/300x0/filters:fill(red)", 300, 225, "scale 300,225"),
        .init(800, 600, "full-fit-in/300x200/filters:fill(red)", 300, 225, "scale 300,225"),
        .init(200, 100, "fit-in/300x200/filters:upscale():fill(red)", 300, 200, "scale 300,150 | fill 300,200,0,25,#ff0000ff"),
        .init(200, 100, "fit-in/300x200/filters:fill(red):upscale()", 300, 200, "fill 300,200,50,50,#ff0000ff"),
        .init(800, 600, "300x200/filters:fill(red)", 300, 200, "crop 0,34,800,533 | scale 300,200"),
        .init(800, 600, "filters:rotate(90)", 600, 800, "rotate 3"),
        .init(800, 600, "300x200/filters:rotate(90)", 200, 300, "crop 0,34,800,533 | scale 300,200 | rotate 3"),
        .init(800, 600, "filters:rotate(-90)", 600, 800, "rotate 1"),
        .init(800, 600, "filters:rotate(180)", 800, 600, "rotate 2"),
        .init(800, 600, "filters:rotate(45)", 800, 600, ""),
        .init(800, 600, "300x200/filters:rotate(90):fill(blue)", 300, 200, "crop 0,34,800,533 | scale 300,200 | rotate 3 | crop 0,50,200,200 | fill 300,200,50,0,#0000ffff"),
        .init(800, 600, "fit-in/300x200/filters:rotate(270):fill(blue)", 300, 200, "scale 267,200 | rotate 1 | crop 0,34,200,200 | fill 300,200,50,0,#0000ffff"),
        .init(800, 600, "filters:proportion(0.5)", 400, 300, "scale 400,300"),
        .init(333, 777, "filters:proportion(0.3)", 99, 233, "scale 99,233"),
        .init(800, 600, "300x200/filters:proportion(0.5)", 150, 100, "crop 0,34,800,533 | scale 300,200 | scale 150,100"),
        .init(800, 600, "300x200/filters:stretch()", 300, 200, "scale 300,200"),
        .init(600, 800, "fit-in/300x200/filters:stretch()", 150, 200, "scale 150,200"),
        .init(800, 600, "300x200/filters:focal(100x100:200x200)", 300, 200, "crop 0,0,800,533 | scale 300,200"),
        .init(800, 600, "300x200/filters:focal(700x100:790x200)", 300, 200, "crop 0,0,800,533 | scale 300,200"),
        .init(800, 600, "10x10:400x400/300x100/filters:focal(100x100:200x200)", 300, 100, "crop 10,10,390,390 | crop 0,75,390,130 | scale 300,100"),
        .init(800, 600, "10x10:400x400/300x100/filters:focal(500x500:600x600)", 300, 100, "crop 10,10,390,390 | crop 0,130,390,130 | scale 300,100"),
        .init(600, 800, "200x200/filters:focal(0x0:100x100):focal(500x700:600x800)", 200, 200, "crop 0,100,600,600 | scale 200,200"),
    ]

    @Test(arguments: cases)
    func stepsMatchThumbor(_ testCase: GeometryCase) throws {
        let geometry = try Self.geometry(testCase.options)
        let steps = geometry.steps(width: testCase.sourceWidth, height: testCase.sourceHeight)
        #expect(steps.map(Self.notation).joined(separator: " | ") == testCase.steps)
        let size = Self.size(after: steps, width: testCase.sourceWidth, height: testCase.sourceHeight)
        #expect(size.width == testCase.width && size.height == testCase.height)
    }

    @Test func descriptionNamesEveryField() throws {
        let geometry = try Self.geometry(
            "trim:top-left:5/1x2:300x400/adaptive-full-fit-in/-300x-orig/left/bottom/smart/"
                + "filters:no_upscale():stretch():focal(1x1:9x9):upscale():fill(red,1):rotate(90):proportion(0.5)")
        #expect(geometry.description == "thumbor(size=300xorig flip=hv fit=adaptive-full-fit-in trim=trim:top-left:5 "
            + "crop=1x2:300x400 align=left,bottom smart=true no_upscale=true stretch=true focal=1x1:9x9 "
            + "post=upscale():fill(#ff0000ff,true):rotate(90):proportion(0.5))")
        #expect(try Self.geometry("300x200").description != Self.geometry("300x201").description)
        #expect(try Self.geometry("300x200").description != Self.geometry("fit-in/300x200").description)
    }

    @Test func degenerateSizesKeepAPixel() throws {
        for options in ["0x10", "10x0", "fit-in/1x1", "1x1/filters:proportion(0.001)"] {
            let steps = try Self.geometry(options).steps(width: 37, height: 1000)
            let size = Self.size(after: steps, width: 37, height: 1000)
            #expect(size.width >= 1 && size.height >= 1, "\(options)")
        }
        #expect(try Self.geometry("300x200").steps(width: 0, height: 0).isEmpty == false)
    }

    @Test func pythonRounding() {
        #expect(PythonArithmetic.round(2.5) == 2 && PythonArithmetic.round(3.5) == 4 && PythonArithmetic.round(-0.5) == 0)
        #expect(PythonArithmetic.hundredths(1.125) == 112)
        #expect(PythonArithmetic.hundredths(0.375) == 38)
        #expect(PythonArithmetic.hundredths(1.005) == 100)
        #expect(PythonArithmetic.hundredths(2.675) == 267)
        #expect(PythonArithmetic.hundredths(4 / 3) == 133)
        #expect(PythonArithmetic.floorDivide(-7, 2) == -4 && PythonArithmetic.floorDivide(7, 2) == 3)
        #expect(PythonArithmetic.int(.infinity) == 1 << 50 && PythonArithmetic.int(.nan) == 0 && PythonArithmetic.int(-2.7) == -2)
    }

    /// The geometry of `/unsafe/OPTIONS/img.example.com/a.jpg`.
    static func geometry(_ options: String) throws -> ThumborGeometry {
        let grammar = ThumborGrammar(securityKey: nil, allowsUnsafe: true)
        let request = try grammar.request(forRawPath: "/unsafe/" + (options.isEmpty ? "" : options + "/") + "img.example.com/a.jpg")
        // A trim comes before the geometry.
        let wrapped = request.operations.lazy.compactMap { operation -> RenditionGeometry? in
            if case .geometry(let geometry) = operation { return geometry }
            return nil
        }.first
        guard let wrapped, let geometry = wrapped.rule as? ThumborGeometry else {
            throw ImageServerError(.internalServerError, "no thumbor geometry in \(request.operations)")
        }
        return geometry
    }

    /// The image size after `steps`.
    static func size(after steps: [GeometryStep], width: Int, height: Int) -> (width: Int, height: Int) {
        var size = (width: width, height: height)
        for step in steps {
            switch step {
            case .crop(_, _, let newWidth, let newHeight), .scale(let newWidth, let newHeight),
                 .smartCrop(let newWidth, let newHeight), .extend(let newWidth, let newHeight, _, _, _),
                 .fill(let newWidth, let newHeight, _, _, _, _):
                size = (newWidth, newHeight)
            case .rotate(let quarterTurns):
                if quarterTurns % 2 != 0 { size = (size.height, size.width) }
            case .flip:
                break
            }
        }
        return size
    }

    /// A step in the table's notation.
    static func notation(_ step: GeometryStep) -> String {
        switch step {
        case .crop(let x, let y, let width, let height): return "crop \(x),\(y),\(width),\(height)"
        case .smartCrop(let width, let height): return "smartCrop \(width),\(height)"
        case .scale(let width, let height): return "scale \(width),\(height)"
        case .flip(let horizontal, let vertical): return "flip " + (horizontal ? "h" : "") + (vertical ? "v" : "")
        case .rotate(let quarterTurns): return "rotate \(quarterTurns)"
        case .extend(let width, let height, let x, let y, let background): return "extend \(width),\(height),\(x),\(y),\(background)"
        case .fill(let width, let height, let x, let y, let fill, let blends):
            return "fill \(width),\(height),\(x),\(y),\(fill)" + (blends ? " blend" : "")
        }
    }
}
