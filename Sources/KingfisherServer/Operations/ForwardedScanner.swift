/// Splits a `Forwarded` field value (RFC 7239) into elements of `name=value` pairs.
///
/// Elements are separated by commas and pairs by semicolons; a value is a token or a quoted
/// string (whose commas and semicolons belong to it, and whose backslash escapes one character).
/// Anything malformed is skipped up to the next separator, never trusted and never fatal: an
/// unterminated quoted string ends the value (it gives an empty value), text after a value up to
/// the next separator is ignored, and empty elements are dropped.
enum ForwardedScanner {
    /// One `name=value` pair; the value is unquoted and unescaped.
    struct Pair: Equatable {
        var name: Substring
        var value: Substring
    }

    private static let comma = UInt8(ascii: ",")
    private static let semicolon = UInt8(ascii: ";")
    private static let equals = UInt8(ascii: "=")
    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    /// The elements of `text`, in order, each as its pairs in order.
    static func elements(of text: Substring) -> [[Pair]] {
        let bytes = text.utf8
        var index = bytes.startIndex
        var elements: [[Pair]] = []
        var pairs: [Pair] = []
        while index < bytes.endIndex {
            let nameStart = index
            while index < bytes.endIndex, ![equals, semicolon, comma].contains(bytes[index]) { bytes.formIndex(after: &index) }
            let name = text[nameStart..<index].trimmingWhitespace()
            var value: Substring = ""
            if index < bytes.endIndex, bytes[index] == equals {
                bytes.formIndex(after: &index)
                value = readValue(text, from: &index)
                // Whatever follows a value before the next separator is not part of it.
                while index < bytes.endIndex, bytes[index] != semicolon, bytes[index] != comma { bytes.formIndex(after: &index) }
            }
            if !name.isEmpty { pairs.append(Pair(name: name, value: value)) }
            if index < bytes.endIndex {
                if bytes[index] == comma {
                    if !pairs.isEmpty { elements.append(pairs) }
                    pairs = []
                }
                bytes.formIndex(after: &index)
            }
        }
        if !pairs.isEmpty { elements.append(pairs) }
        return elements
    }

    /// The token or quoted string at `index` (after optional spaces); leaves `index` after it.
    private static func readValue(_ text: Substring, from index: inout Substring.Index) -> Substring {
        let bytes = text.utf8
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            bytes.formIndex(after: &index)
        }
        guard index < bytes.endIndex, bytes[index] == quote else {
            let start = index
            while index < bytes.endIndex, bytes[index] != semicolon, bytes[index] != comma { bytes.formIndex(after: &index) }
            return text[start..<index].trimmingWhitespace()
        }
        bytes.formIndex(after: &index)
        var unquoted: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            if byte == quote { return Substring(String(decoding: unquoted, as: UTF8.self)) }
            if byte == backslash {
                guard index < bytes.endIndex else { break }
                unquoted.append(bytes[index])
                bytes.formIndex(after: &index)
            } else {
                unquoted.append(byte)
            }
        }
        return ""
    }
}
