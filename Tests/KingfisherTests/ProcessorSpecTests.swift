import Foundation
import Testing
@testable import Kingfisher

@Suite struct ProcessorSpecTests {
    @Test func parsesStepsAndArguments() throws {
        let spec = try ProcessorSpec(parsing: " downsample(200x100) |> round(20, 50x50)|>blackWhite ")
        #expect(spec.steps.map(\.name) == ["downsample", "round", "blackWhite"])
        #expect(spec.steps[1].arguments == ["20", "50x50"])
        #expect(spec.steps[2].arguments.isEmpty)
        #expect(try spec.steps[0].size(0, "size") == CGSize(width: 200, height: 100))
        #expect(try spec.steps[1].number(0, "radius") == 20)
    }

    @Test(arguments: [
        ("", "empty"),
        ("blur(4)|>", "a step is empty: there is nothing after the '|>' at column 8"),
        ("blur(4)|>  |>round(2)", "a step is empty: there is nothing between the '|>' at column 8 and the one at column 12"),
        ("blur(4", "the parenthesis '(' at column 5 is never closed"),
        ("blur(4))", "a ')' at column 8 closes no parenthesis"),
        ("(4)", "the step has no name before the '(' at column 1"),
        ("blur(4,,2)", "an argument is empty at column 8"),
        ("blu r", "unexpected 'r' at column 5: a step is a name"),
        ("blur((4))", "a second '(' at column 6"),
    ])
    func malformedSpecsSayWhichPart(spec: String, expected: String) {
        do {
            _ = try ProcessorSpec(parsing: spec)
            Issue.record("'\(spec)' parsed")
        } catch let error as ProcessorSpecError {
            #expect(error.description.contains(expected), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// What is wrong and where, for specs a newcomer writes.
    @Test(arguments: [
        ("downsample(200x200)|round(20)", "in 'downsample(200x200)|round(20)': a single '|' at column 20: processors are chained with '|>'", 20),
        ("blur(2)|", "in 'blur(2)|': a single '|' at column 8: processors are chained with '|>'", 8),
        ("blur(2) > round(3)", "in 'blur(2) > round(3)': a '>' without '|' at column 9: processors are chained with '|>'", 9),
        ("blur(2) |> round(3", "in 'round(3': the parenthesis '(' at column 17 is never closed", 17),
    ])
    func chainingMistakesSayWhereTheyAre(spec: String, expected: String, column: Int) {
        do {
            _ = try ProcessorSpec(parsing: spec)
            Issue.record("'\(spec)' parsed")
        } catch let error as ProcessorSpecError {
            #expect(error.description == expected)
            #expect(error.column == column)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func argumentErrorsNameTheStepAndTheValue() throws {
        let step = try #require(try ProcessorSpec(parsing: "crop(10y20,x)").steps.first)
        #expect(throws: ProcessorSpecError.self) { try step.size(0, "size") }
        let error = try #require(throws: ProcessorSpecError.self) { try step.number(1, "anchor x") }
        #expect(error.description == "in 'crop(10y20,x)': anchor x must be a number, got 'x'")
        #expect(throws: ProcessorSpecError.self) { try step.color(0, "colour") }
        #expect(throws: ProcessorSpecError.self) { try step.argument(5, "fifth") }
        #expect(throws: ProcessorSpecError.self) { try step.expectArguments(1, 1, usage: "crop(WxH)") }
    }
}

@Suite struct ProcessorSpecBuildingTests {
    @Test func everySpellingBuildsItsProcessor() throws {
        let cases: [(String, any ImageProcessor)] = [
            ("downsample(200x100)", DownsamplingImageProcessor(size: CGSize(width: 200, height: 100))),
            ("resize(30x40)", ResizingImageProcessor(referenceSize: CGSize(width: 30, height: 40))),
            ("resize(30x40,fit)", ResizingImageProcessor(referenceSize: CGSize(width: 30, height: 40), mode: .aspectFit)),
            ("resize(30x40,fill)", ResizingImageProcessor(referenceSize: CGSize(width: 30, height: 40), mode: .aspectFill)),
            ("round(20)", RoundCornerImageProcessor(cornerRadius: 20)),
            ("round(20,50x60)", RoundCornerImageProcessor(cornerRadius: 20, targetSize: CGSize(width: 50, height: 60))),
            ("crop(10x20)", CroppingImageProcessor(size: CGSize(width: 10, height: 20))),
            ("crop(10x20,0,1)", CroppingImageProcessor(size: CGSize(width: 10, height: 20), anchor: CGPoint(x: 0, y: 1))),
            ("blur(4)", BlurImageProcessor(blurRadius: 4)),
            ("tint(#FF000080)", TintImageProcessor(tint: KFCrossPlatformColor(red: 1, green: 0, blue: 0, alpha: 128.0 / 255))),
            ("overlay(#0000FF,0.25)", OverlayImageProcessor(overlay: .blue, fraction: 0.25)),
            ("colorControls(0.1,1.2,0.5,0.3)", ColorControlsProcessor(brightness: 0.1, contrast: 1.2, saturation: 0.5, inputEV: 0.3)),
            ("blackWhite", BlackWhiteProcessor()),
            ("border(#000000FF,4)", BorderImageProcessor(border: Border(color: .black, lineWidth: 4, radius: .point(0)))),
            ("border(#000000FF,4,8)", BorderImageProcessor(border: Border(color: .black, lineWidth: 4, radius: .point(8)))),
            ("blend(multiply,0.5)", BlendImageProcessor(blendMode: .multiply, alpha: 0.5)),
            ("blend(softLight,1,#FFFFFFFF)", BlendImageProcessor(blendMode: .softLight, alpha: 1, backgroundColor: .white)),
        ]
        for (text, expected) in cases {
            let built = try ProcessorSpec(parsing: text).processor()
            #expect(built.identifier == expected.identifier, "\(text)")
        }
        let chain = try ProcessorSpec(parsing: "downsample(200x200)|>round(20)|>blur(4)").processor()
        let expected = DownsamplingImageProcessor(size: CGSize(width: 200, height: 200))
            |> RoundCornerImageProcessor(cornerRadius: 20) |> BlurImageProcessor(blurRadius: 4)
        #expect(chain.identifier == expected.identifier)
    }

    @Test func namesAreMatchedWithoutRegardToCase() throws {
        let written = try ProcessorSpec(parsing: "Downsample(20x20)|>BLUR(2)|>blackwhite|>Blend(MULTIPLY,0.5)|>resize(9x9,Fit)").processor()
        let expected = try ProcessorSpec(parsing: "downsample(20x20)|>blur(2)|>blackWhite|>blend(multiply,0.5)|>resize(9x9,fit)").processor()
        #expect(written.identifier == expected.identifier)
    }

    /// An unknown name says so once, with the nearest name when there is one close enough, or
    /// the list of names; no pointer to a command's help (the command adds its own).
    @Test(arguments: [
        ("blurr(2)", "in 'blurr(2)': unknown processor 'blurr' at column 1; did you mean 'blur'?"),
        ("blur(2)|>rnd(4)", "in 'rnd(4)': unknown processor 'rnd' at column 10; did you mean 'round'?"),
        ("downsampel(9x9)", "in 'downsampel(9x9)': unknown processor 'downsampel' at column 1; did you mean 'downsample'?"),
        ("colourControls(0,1,1,0)", "in 'colourControls(0,1,1,0)': unknown processor 'colourControls' at column 1; did you mean 'colorControls'?"),
        ("frobnicate", "in 'frobnicate': unknown processor 'frobnicate' at column 1: the processors are downsample, resize, round, crop, blur, tint, overlay, colorControls, blackWhite, border, blend, fit, cropRect, cropTo, extend, pad, flip, rotate, levels, grayscale, sharpen, smartCrop, watermark"),
        ("blend(multipy,1)", "in 'blend(multipy,1)': unknown blend mode 'multipy'; did you mean 'multiply'?"),
    ])
    func unknownNamesSuggestTheNearest(spec: String, expected: String) {
        do {
            _ = try ProcessorSpec(parsing: spec).processor()
            Issue.record("'\(spec)' built")
        } catch let error as ProcessorSpecError {
            #expect(error.description == expected)
            #expect(!error.description.contains("--help"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(arguments: [
        ("frob(1)", "unknown processor 'frob'"),
        ("blur()", "takes 1 argument"),
        ("blur(-1)", "must not be negative"),
        ("resize(10x10,cover)", "fit or fill"),
        ("crop(10x10,0.5)", "both anchor coordinates"),
        ("crop(10x10,2,0)", "between 0 and 1"),
        ("overlay(red,0.5)", "colour like #RRGGBBAA"),
        ("blend(plus,1)", "unknown blend mode 'plus'"),
        ("downsample(0x10)", "WxH with positive numbers"),
        ("blackWhite(1)", "takes 0 arguments"),
    ])
    func badArgumentsNameTheStep(spec: String, expected: String) {
        do {
            _ = try ProcessorSpec(parsing: spec).processor()
            Issue.record("'\(spec)' built")
        } catch let error as ProcessorSpecError {
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.contains(spec), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
