import Foundation

/// The literal assignments of a thumbor configuration file (`thumbor.conf`, Python syntax), read
/// without running it.
///
/// Each top-level `NAME = VALUE` is kept with its value when the value is a literal: a string
/// (any quotes and prefixes, adjacent strings joined), a number (arithmetic of numbers such as
/// `24 * 60 * 60` included), `True`, `False`, `None`, a list or tuple of those, or
/// `re.compile('…')`. Any other value is kept as ``PythonValue/other(_:)`` with its text, so the
/// reader can say it was not read. `import` lines are listed in ``imports``; any other statement
/// is an error.
public struct ThumborConfFile: Sendable {
    /// One assignment.
    public struct Entry: Sendable, Hashable {
        /// The setting's name.
        public var name: String
        /// The value.
        public var value: PythonValue
        /// The value as written.
        public var text: String
        /// The line the assignment starts on, from 1.
        public var line: Int
    }

    /// The assignments in file order (a name assigned twice appears twice; the last one counts).
    public let entries: [Entry]
    /// The `import` and `from … import` statements, by line.
    public let imports: [(line: Int, text: String)]

    /// The last assignment of each name.
    public var settings: [String: Entry] {
        Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
    }

    /// Reads `contents`.
    ///
    /// - Throws: ``ThumborConfError`` naming the line of a statement that is not an assignment or
    ///   an import, or of text Python would not read (an unclosed string or bracket).
    public init(contents: String) throws {
        var entries: [Entry] = []
        var imports: [(line: Int, text: String)] = []
        for statement in try PythonLexer.statements(in: contents) {
            let tokens = statement.tokens
            if case .name(let word)? = tokens.first?.kind, word == "import" || word == "from" {
                imports.append((statement.line, String(statement.text)))
                continue
            }
            guard tokens.count >= 3, case .name(let name) = tokens[0].kind, !name.contains("."),
                  tokens[1].kind == .punctuation("=") else {
                throw ThumborConfError("line \(statement.line): only assignments (NAME = VALUE) and imports are read: \(statement.text)")
            }
            let valueText = String(statement.text[tokens[2].range.lowerBound...]).trimmingCharacters(in: .whitespaces)
            var parser = PythonLiteralParser(tokens: Array(tokens[2...]))
            let value = parser.parseWhole() ?? .other(valueText)
            entries.append(Entry(name: name, value: value, text: valueText, line: statement.line))
        }
        self.entries = entries
        self.imports = imports
    }
}

/// A value of a thumbor configuration file.
public indirect enum PythonValue: Sendable, Hashable, CustomStringConvertible {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    case none
    case list([PythonValue])
    case tuple([PythonValue])
    /// `re.compile('PATTERN')`.
    case pattern(String)
    /// A value that is not a literal, as written.
    case other(String)

    /// The value in Python's spelling.
    public var description: String {
        switch self {
        case .string(let text): return "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        case .integer(let value): return String(value)
        case .float(let value): return String(value)
        case .bool(let value): return value ? "True" : "False"
        case .none: return "None"
        case .list(let items): return "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .tuple(let items): return "(" + items.map(\.description).joined(separator: ", ") + (items.count == 1 ? ",)" : ")")
        case .pattern(let text): return "re.compile(\(PythonValue.string(text)))"
        case .other(let text): return text
        }
    }

    /// The number, for an integer or a float.
    public var number: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .float(let value): return value
        default: return nil
        }
    }

    /// The items of a list or tuple.
    public var items: [PythonValue]? {
        switch self {
        case .list(let items), .tuple(let items): return items
        default: return nil
        }
    }
}

/// A thumbor configuration file Python would not read, or that holds a statement other than an
/// assignment or an import.
public struct ThumborConfError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, with the line.
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Parses the tokens of one value.
struct PythonLiteralParser {
    let tokens: [PythonToken]
    var index = 0

    init(tokens: [PythonToken]) { self.tokens = tokens }

    /// The value when the tokens are exactly one literal, else `nil`.
    mutating func parseWhole() -> PythonValue? {
        guard let value = parseValue(), index == tokens.count else { return nil }
        return value
    }

    private var current: PythonToken.Kind? { index < tokens.count ? tokens[index].kind : nil }

    private mutating func take(_ kind: PythonToken.Kind) -> Bool {
        guard current == kind else { return false }
        index += 1
        return true
    }

    mutating func parseValue() -> PythonValue? {
        switch current {
        case .string?:
            var text = ""
            while case .string(let part)? = current {
                text += part
                index += 1
            }
            return .string(text)
        case .punctuation("[")?:
            index += 1
            return parseItems(closing: "]").map { .list($0) }
        case .punctuation("(")?:
            let start = index
            index += 1
            if let items = parseItems(closing: ")"), items.count != 1 || tokens[index - 2].kind == .punctuation(",") {
                return .tuple(items)
            }
            index = start
            return parseArithmetic()
        case .name("True")?:
            index += 1
            return .bool(true)
        case .name("False")?:
            index += 1
            return .bool(false)
        case .name("None")?:
            index += 1
            return PythonValue.none
        case .name("re.compile")?:
            index += 1
            guard take(.punctuation("(")), case .string? = current, case .string(let pattern)? = parseValue() else { return nil }
            _ = take(.punctuation(","))
            guard take(.punctuation(")")) else { return nil }
            return .pattern(pattern)
        default:
            return parseArithmetic()
        }
    }

    /// Items up to `closing`, a trailing comma allowed.
    private mutating func parseItems(closing: Character) -> [PythonValue]? {
        var items: [PythonValue] = []
        while !take(.punctuation(closing)) {
            guard let item = parseValue() else { return nil }
            items.append(item)
            if !take(.punctuation(",")) {
                guard take(.punctuation(closing)) else { return nil }
                break
            }
        }
        return items
    }

    /// `term (('+' | '-') term)*` over numbers.
    private mutating func parseArithmetic() -> PythonValue? {
        guard var value = parseTerm() else { return nil }
        while case .punctuation(let op)? = current, op == "+" || op == "-" {
            index += 1
            guard let right = parseTerm(), let result = Self.combine(value, op, right) else { return nil }
            value = result
        }
        return value
    }

    private mutating func parseTerm() -> PythonValue? {
        guard var value = parseFactor() else { return nil }
        while case .punctuation(let op)? = current, op == "*" || op == "/" {
            index += 1
            guard let right = parseFactor(), let result = Self.combine(value, op, right) else { return nil }
            value = result
        }
        return value
    }

    private mutating func parseFactor() -> PythonValue? {
        switch current {
        case .punctuation("-")?:
            index += 1
            return parseFactor().flatMap { Self.combine(.integer(0), "-", $0) }
        case .punctuation("+")?:
            index += 1
            return parseFactor()
        case .number(let value)?:
            index += 1
            return value
        case .punctuation("(")?:
            index += 1
            guard let value = parseArithmetic(), take(.punctuation(")")) else { return nil }
            return value
        default:
            return nil
        }
    }

    private static func combine(_ left: PythonValue, _ op: Character, _ right: PythonValue) -> PythonValue? {
        if case .integer(let a) = left, case .integer(let b) = right, op != "/" {
            let (result, overflow): (Int, Bool)
            switch op {
            case "+": (result, overflow) = a.addingReportingOverflow(b)
            case "-": (result, overflow) = a.subtractingReportingOverflow(b)
            default: (result, overflow) = a.multipliedReportingOverflow(by: b)
            }
            return overflow ? nil : .integer(result)
        }
        guard let a = left.number, let b = right.number else { return nil }
        switch op {
        case "+": return .float(a + b)
        case "-": return .float(a - b)
        case "*": return .float(a * b)
        default: return b == 0 ? nil : .float(a / b)
        }
    }
}
