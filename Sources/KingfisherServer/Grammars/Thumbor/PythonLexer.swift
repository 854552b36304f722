import Foundation

/// One token of a Python statement.
struct PythonToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A name, dotted names joined (`re.compile`).
        case name(String)
        /// A string literal's value (escapes applied unless raw).
        case string(String)
        /// An integer or float literal.
        case number(PythonValue)
        /// One character of punctuation or an operator.
        case punctuation(Character)
    }

    var kind: Kind
    /// Where it is in the file.
    var range: Range<String.Index>
}

/// One logical line of a Python file: its tokens, its text and its first line number.
struct PythonStatement: Sendable {
    var tokens: [PythonToken]
    var text: Substring
    var line: Int
}

/// Splits Python source into logical lines of tokens: comments dropped, brackets and backslashes
/// joining physical lines, strings in any quoting.
enum PythonLexer {
    static func statements(in source: String) throws -> [PythonStatement] {
        var statements: [PythonStatement] = []
        var tokens: [PythonToken] = []
        var depth = 0
        var line = 1
        var statementLine = 1
        var index = source.startIndex

        func finish() {
            if let first = tokens.first, let last = tokens.last {
                statements.append(PythonStatement(tokens: tokens, text: source[first.range.lowerBound..<last.range.upperBound], line: statementLine))
            }
            tokens = []
        }

        while index < source.endIndex {
            let character = source[index]
            if character == "\n" {
                line += 1
                index = source.index(after: index)
                if depth == 0 { finish() }
                continue
            }
            if character == "#" {
                while index < source.endIndex, source[index] != "\n" { index = source.index(after: index) }
                continue
            }
            if character == "\\", source.index(after: index) < source.endIndex, source[source.index(after: index)] == "\n" {
                line += 1
                index = source.index(index, offsetBy: 2)
                continue
            }
            if character == " " || character == "\t" || character == "\r" || character == "\u{0C}" {
                index = source.index(after: index)
                continue
            }
            if tokens.isEmpty { statementLine = line }
            let start = index
            if character.isLetter || character == "_" {
                // A string prefix (r, b, u, f and pairs) directly before a quote.
                var end = index
                while end < source.endIndex, source[end].isLetter || source[end].isNumber || source[end] == "_" || source[end] == "." {
                    end = source.index(after: end)
                }
                let word = String(source[index..<end])
                if end < source.endIndex, source[end] == "'" || source[end] == "\"",
                   word.count <= 2, word.lowercased().allSatisfy({ "rbuf".contains($0) }) {
                    let raw = word.lowercased().contains("r")
                    let (value, after, lines) = try string(in: source, at: end, raw: raw, line: line)
                    line += lines
                    tokens.append(PythonToken(kind: .string(value), range: start..<after))
                    index = after
                    continue
                }
                tokens.append(PythonToken(kind: .name(word), range: start..<end))
                index = end
                continue
            }
            if character == "'" || character == "\"" {
                let (value, after, lines) = try string(in: source, at: index, raw: false, line: line)
                line += lines
                tokens.append(PythonToken(kind: .string(value), range: start..<after))
                index = after
                continue
            }
            if character.isNumber || (character == "." && source.index(after: index) < source.endIndex && source[source.index(after: index)].isNumber) {
                var end = index
                while end < source.endIndex, source[end].isLetter || source[end].isNumber || source[end] == "_" || source[end] == "."
                    || ((source[end] == "+" || source[end] == "-") && end > index && "eE".contains(source[source.index(before: end)])
                        && !source[index..<end].lowercased().hasPrefix("0x")) {
                    end = source.index(after: end)
                }
                let text = source[index..<end].replacingOccurrences(of: "_", with: "")
                let value: PythonValue
                if text.lowercased().hasPrefix("0x"), let number = Int(text.dropFirst(2), radix: 16) {
                    value = .integer(number)
                } else if let number = Int(text) {
                    value = .integer(number)
                } else if let number = Double(text) {
                    value = .float(number)
                } else {
                    throw ThumborConfError("line \(line): not a number: \(source[index..<end])")
                }
                tokens.append(PythonToken(kind: .number(value), range: start..<end))
                index = end
                continue
            }
            if "([{".contains(character) { depth += 1 }
            if ")]}".contains(character) {
                guard depth > 0 else { throw ThumborConfError("line \(line): '\(character)' closes nothing") }
                depth -= 1
            }
            tokens.append(PythonToken(kind: .punctuation(character), range: start..<source.index(after: index)))
            index = source.index(after: index)
        }
        guard depth == 0 else { throw ThumborConfError("line \(statementLine): a bracket is never closed") }
        finish()
        return statements
    }

    /// The string literal starting with the quote at `start`: its value, the index after it, and
    /// the newlines it spans.
    private static func string(in source: String, at start: String.Index, raw: Bool, line: Int) throws -> (String, String.Index, Int) {
        let quote = source[start]
        let triple = source[start...].hasPrefix(String(repeating: quote, count: 3))
        var index = source.index(start, offsetBy: triple ? 3 : 1)
        var value = ""
        var lines = 0
        while index < source.endIndex {
            let character = source[index]
            if triple ? source[index...].hasPrefix(String(repeating: quote, count: 3)) : character == quote {
                return (value, source.index(index, offsetBy: triple ? 3 : 1), lines)
            }
            if character == "\n" {
                guard triple else { break }
                lines += 1
            }
            if character == "\\", source.index(after: index) < source.endIndex {
                let next = source[source.index(after: index)]
                index = source.index(index, offsetBy: 2)
                if next == "\n" { lines += 1 }
                if raw {
                    value.append("\\")
                    value.append(next)
                    continue
                }
                switch next {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "0": value.append("\0")
                case "\\", "'", "\"": value.append(next)
                case "\n": break
                default:
                    value.append("\\")
                    value.append(next)
                }
                continue
            }
            value.append(character)
            index = source.index(after: index)
        }
        throw ThumborConfError("line \(line): a string is never closed")
    }
}
