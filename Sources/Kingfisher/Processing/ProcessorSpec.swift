import Foundation

/// A processor chain written as text, as `kf process --processor` and other tools take it:
/// `downsample(200x200)|>round(20)|>blur(4)`.
///
/// Each step is a name with an optional parenthesised, comma-separated argument list. Sizes are
/// `WxH` in points, colours `#RRGGBBAA` (or `#RRGGBB`), numbers plain decimals. ``processor()``
/// builds the chain; both parsing and building throw ``ProcessorSpecError`` naming the step that is
/// wrong. The spellings are listed in ``ProcessorSpec/grammar``.
public struct ProcessorSpec: Sendable, Hashable {
    /// One `name(arguments)` step.
    public struct Step: Sendable, Hashable {
        /// The processor's name as written.
        public var name: String
        /// The arguments, trimmed, as written.
        public var arguments: [String]
        /// The step as it was written, for messages.
        public var text: String
    }

    /// The steps in order.
    public var steps: [Step]

    /// Parses `text`; throws when a step is empty or its parentheses do not match.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw ProcessorSpecError(step: text, reason: "the processor spec is empty")
        }
        steps = try trimmed.components(separatedBy: "|>").map { try Self.parseStep($0) }
    }

    private static func parseStep(_ raw: String) throws -> Step {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            throw ProcessorSpecError(step: raw, reason: "a step between '|>' is empty")
        }
        guard let open = text.firstIndex(of: "(") else {
            guard text.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw ProcessorSpecError(step: text, reason: "a step is a name, optionally followed by (arguments)")
            }
            return Step(name: text, arguments: [], text: text)
        }
        guard text.hasSuffix(")"), text.filter({ $0 == "(" }).count == 1, text.filter({ $0 == ")" }).count == 1 else {
            throw ProcessorSpecError(step: text, reason: "the parentheses do not match")
        }
        let name = String(text[..<open]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw ProcessorSpecError(step: text, reason: "the step has no name before '('")
        }
        let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
        let arguments = inner.trimmingCharacters(in: .whitespaces).isEmpty
            ? []
            : inner.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if arguments.contains(where: \.isEmpty) {
            throw ProcessorSpecError(step: text, reason: "an argument is empty")
        }
        return Step(name: name, arguments: arguments, text: text)
    }
}

/// A processor spec that cannot be parsed or built, naming the step and what is wrong with it.
public struct ProcessorSpecError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The step as written.
    public var step: String
    /// What is wrong with it.
    public var reason: String

    /// The failing step and what is wrong with it.
    public var description: String { "in '\(step)': \(reason)" }
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
