import Foundation

/// A processor chain written as text, as `kf process --processor` and other tools take it:
/// `downsample(200x200)|>round(20)|>blur(4)`.
///
/// Each step is a name with an optional parenthesised, comma-separated argument list. Sizes are
/// `WxH` in points, colours `#RRGGBBAA` (or `#RRGGBB`), numbers plain decimals. Names are matched
/// without regard to case. ``processor()`` builds the chain; both parsing and building throw
/// ``ProcessorSpecError`` naming the step that is wrong and, where the problem is at one place,
/// its column. The spellings are listed in ``ProcessorSpec/grammar``.
public struct ProcessorSpec: Sendable, Hashable {
    /// One `name(arguments)` step.
    public struct Step: Sendable, Hashable {
        /// The processor's name as written.
        public var name: String
        /// The arguments, trimmed, as written.
        public var arguments: [String]
        /// The step as it was written, for messages.
        public var text: String
        /// The 1-based column of the name in the whole spec.
        var column = 1
    }

    /// The steps in order.
    public var steps: [Step]

    /// Parses `text`; throws when a step is empty, a name is malformed, a parenthesis is not
    /// matched or steps are joined by anything but `|>`.
    public init(parsing text: String) throws {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ProcessorSpecError(step: text, reason: "the processor spec is empty")
        }
        let characters = Array(text)
        try Self.checkChaining(characters, text: text)
        var steps: [Step] = []
        var start = 0
        var index = 0
        while index <= characters.count {
            let atSeparator = index + 1 < characters.count && characters[index] == "|" && characters[index + 1] == ">"
            if index == characters.count || atSeparator {
                steps.append(try Self.parseStep(characters, from: start, to: index, spec: text))
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        self.steps = steps
    }

    /// Throws at a `|` that is not followed by `>`, or a `>` that does not follow `|`.
    private static func checkChaining(_ characters: [Character], text: String) throws {
        for (offset, character) in characters.enumerated() {
            if character == "|", offset + 1 >= characters.count || characters[offset + 1] != ">" {
                throw ProcessorSpecError(
                    step: text, reason: "a single '|' at column \(offset + 1): processors are chained with '|>'", column: offset + 1)
            }
            if character == ">", offset == 0 || characters[offset - 1] != "|" {
                throw ProcessorSpecError(
                    step: text, reason: "a '>' without '|' at column \(offset + 1): processors are chained with '|>'",
                    column: offset + 1)
            }
        }
    }

    /// Parses `characters[start..<end]`, one step; columns in messages count from the start of the spec.
    private static func parseStep(_ characters: [Character], from start: Int, to end: Int, spec: String) throws -> Step {
        var first = start
        while first < end, characters[first].isWhitespace { first += 1 }
        var last = end
        while last > first, characters[last - 1].isWhitespace { last -= 1 }
        let text = String(characters[first..<last])
        guard first < last else {
            let position = start == 0 ? "before the '|>' at column \(end + 1)"
                : end == characters.count ? "after the '|>' at column \(start - 1)"
                : "between the '|>' at column \(start - 1) and the one at column \(end + 1)"
            throw ProcessorSpecError(step: spec, reason: "a step is empty: there is nothing \(position)", column: first + 1)
        }
        var index = first
        while index < last, isNameCharacter(characters[index]) { index += 1 }
        let name = String(characters[first..<index])
        while index < last, characters[index].isWhitespace { index += 1 }
        guard index < last else {
            return Step(name: name, arguments: [], text: text, column: first + 1)
        }
        guard characters[index] == "(" else {
            let reason = characters[index] == ")"
                ? "a ')' at column \(index + 1) closes no parenthesis"
                : "unexpected '\(characters[index])' at column \(index + 1): a step is a name, optionally followed by (arguments)"
            throw ProcessorSpecError(step: text, reason: reason, column: index + 1)
        }
        guard !name.isEmpty else {
            throw ProcessorSpecError(step: text, reason: "the step has no name before the '(' at column \(index + 1)", column: index + 1)
        }
        let open = index
        var arguments: [String] = []
        var argumentStart = open + 1
        index = open + 1
        while true {
            guard index < last else {
                throw ProcessorSpecError(
                    step: text, reason: "the parenthesis '(' at column \(open + 1) is never closed", column: open + 1)
            }
            let character = characters[index]
            if character == "(" {
                throw ProcessorSpecError(
                    step: text, reason: "a second '(' at column \(index + 1): arguments cannot hold parentheses", column: index + 1)
            }
            if character == "," || character == ")" {
                let argument = String(characters[argumentStart..<index]).trimmingCharacters(in: .whitespaces)
                let onlyEmptyList = character == ")" && arguments.isEmpty && argument.isEmpty
                if argument.isEmpty, !onlyEmptyList {
                    throw ProcessorSpecError(
                        step: text, reason: "an argument is empty at column \(index + 1)", column: index + 1)
                }
                if !onlyEmptyList { arguments.append(argument) }
                argumentStart = index + 1
                if character == ")" { break }
            }
            index += 1
        }
        let close = index
        guard close + 1 == last else {
            let next = close + 1
            let reason = characters[next] == ")"
                ? "a ')' at column \(next + 1) closes no parenthesis"
                : "unexpected '\(characters[next])' at column \(next + 1), after the ')' that ends the arguments"
            throw ProcessorSpecError(step: text, reason: reason, column: next + 1)
        }
        return Step(name: name, arguments: arguments, text: text, column: first + 1)
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber
    }
}

/// A processor spec that cannot be parsed or built, naming the step and what is wrong with it.
public struct ProcessorSpecError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The step as written (the whole spec when the problem is between steps).
    public var step: String
    /// What is wrong with it, with the column where the problem is when it is at one place.
    public var reason: String
    /// The 1-based column in the whole spec where the problem is, when it is at one place.
    public var column: Int?

    init(step: String, reason: String, column: Int? = nil) {
        self.step = step
        self.reason = reason
        self.column = column
    }

    /// The failing step and what is wrong with it.
    public var description: String { step.isEmpty ? reason : "in '\(step)': \(reason)" }
    /// The same as ``description``.
    public var errorDescription: String? { description }
}

extension ProcessorSpec.Step {
    /// The argument at `index` as a finite number, or a thrown error naming `what` it is.
    func number(_ index: Int, _ what: String) throws -> CGFloat {
        let argument = try self.argument(index, what)
        guard let value = Double(argument), value.isFinite else {
            throw ProcessorSpecError(step: text, reason: "\(what) must be a number, got '\(argument)'")
        }
        return CGFloat(value)
    }

    /// The argument at `index` as a `WxH` size with positive parts.
    func size(_ index: Int, _ what: String) throws -> CGSize {
        let argument = try self.argument(index, what)
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
              width.isFinite, height.isFinite, width > 0, height > 0
        else {
            throw ProcessorSpecError(step: text, reason: "\(what) must be WxH with positive numbers, got '\(argument)'")
        }
        return CGSize(width: width, height: height)
    }

    /// The argument at `index` as a `#RRGGBB[AA]` colour.
    func color(_ index: Int, _ what: String) throws -> KFCrossPlatformColor {
        let argument = try self.argument(index, what)
        guard argument.hasPrefix("#"), let color = KFCrossPlatformColor(hex: argument) else {
            throw ProcessorSpecError(step: text, reason: "\(what) must be a colour like #RRGGBBAA, got '\(argument)'")
        }
        return color
    }

    /// The argument at `index`, or a thrown error saying it is missing.
    func argument(_ index: Int, _ what: String) throws -> String {
        guard index < arguments.count else {
            throw ProcessorSpecError(step: text, reason: "\(what) is missing")
        }
        return arguments[index]
    }

    /// Throws unless the step has between `minimum` and `maximum` arguments; `usage` shows the spelling.
    func expectArguments(_ minimum: Int, _ maximum: Int, usage: String) throws {
        guard (minimum...maximum).contains(arguments.count) else {
            let count = minimum == maximum ? "\(minimum)" : "\(minimum) to \(maximum)"
            throw ProcessorSpecError(step: text, reason: "takes \(count) argument\(maximum == 1 ? "" : "s"): \(usage)")
        }
    }
}
