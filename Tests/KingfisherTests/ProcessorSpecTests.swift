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
        ("blur(4)|>", "empty"),
        ("blur(4", "parentheses"),
        ("blur(4))", "parentheses"),
        ("(4)", "no name"),
        ("blur(4,,2)", "argument is empty"),
        ("blu r", "a step is a name"),
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

    @Test func argumentErrorsNameTheStepAndTheValue() throws {
        let step = try #require(try ProcessorSpec(parsing: "crop(10y20,x)").steps.first)
        #expect(throws: ProcessorSpecError.self) { try step.size(0, "size") }
        do {
            _ = try step.number(1, "anchor x")
        } catch let error as ProcessorSpecError {
            #expect(error.description == "in 'crop(10y20,x)': anchor x must be a number, got 'x'")
        }
        #expect(throws: ProcessorSpecError.self) { try step.color(0, "colour") }
        #expect(throws: ProcessorSpecError.self) { try step.argument(5, "fifth") }
        #expect(throws: ProcessorSpecError.self) { try step.expectArguments(1, 1, usage: "crop(WxH)") }
    }
}
