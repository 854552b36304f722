import Foundation

/// Text of code as the documentation compares it: common indentation, trailing spaces and outer
/// blank lines removed.
enum SnippetText {
    /// `lines` without their common indentation, trailing spaces and leading or trailing blank lines.
    static func normalized(_ lines: [String]) -> String {
        var lines = lines.map { line in
            String(line.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(indent)) }.joined(separator: "\n")
    }
}

/// A named snippet: the compiled code a documentation block must equal.
struct Snippet {
    let name: String
    /// Where its first part starts (`Tests/KingfisherTests/DocSnippets/X.swift:12`).
    let location: String
    /// Its parts, each normalized, joined by one blank line.
    let text: String
}

/// The snippets marked in Swift files: a region runs from a `// snippet: NAME` line to the next
/// `// end snippet` line, exclusive. Regions of one name, in one file or several, are parts of one
/// snippet joined by a blank line, so a snippet can show an `import` at the top of a file and code
/// inside a function.
struct SnippetCatalog {
    private(set) var snippets: [String: Snippet] = [:]
    /// Marker mistakes: a region never closed, an end without a start, a region inside another.
    private(set) var problems: [String] = []
    private(set) var fileCount = 0

    /// Reads every `.swift` file under `folders` (paths relative to `root`; missing ones are skipped).
    init(root: URL, folders: [String]) throws {
        var parts: [(name: String, location: String, text: String)] = []
        for folder in folders {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".swift") {
                let path = "\(folder)/\(relative)"
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                fileCount += 1
                parts += scan(text, path: path)
            }
        }
        parts.sort { $0.location.localizedStandardCompare($1.location) == .orderedAscending }
        var grouped: [String: (location: String, texts: [String])] = [:]
        for part in parts {
            grouped[part.name, default: (part.location, [])].texts.append(part.text)
        }
        for (name, group) in grouped {
            snippets[name] = Snippet(name: name, location: group.location, text: group.texts.joined(separator: "\n\n"))
        }
    }

    /// The marked regions of one file, in order.
    private mutating func scan(_ text: String, path: String) -> [(name: String, location: String, text: String)] {
        var found: [(name: String, location: String, text: String)] = []
        var open: (name: String, line: Int, body: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet:") {
                if let region = open { problems.append("\(path):\(region.line): snippet \(region.name) is not closed before line \(index + 1)") }
                let name = trimmed.dropFirst("// snippet:".count).trimmingCharacters(in: .whitespaces)
                open = (name, index + 1, [])
            } else if trimmed == "// end snippet" {
                guard let region = open else {
                    problems.append("\(path):\(index + 1): `// end snippet` without a snippet")
                    continue
                }
                found.append((region.name, "\(path):\(region.line)", SnippetText.normalized(region.body)))
                open = nil
            } else if open != nil {
                open?.body.append(line)
            }
        }
        if let region = open { problems.append("\(path):\(region.line): snippet \(region.name) is never closed") }
        return found
    }

    /// The snippet whose text equals `text`, if any.
    func twin(of text: String) -> Snippet? {
        snippets.values.first { $0.text == text }
    }

    /// The snippet sharing the longest run of opening lines with `text`, and the first line where they part.
    func closest(to text: String) -> (snippet: Snippet, line: Int)? {
        let wanted = text.components(separatedBy: "\n")
        return snippets.values.map { snippet -> (Snippet, Int) in
            let lines = snippet.text.components(separatedBy: "\n")
            let same = zip(wanted, lines).prefix { $0 == $1 }.count
            return (snippet, same + 1)
        }.max { $0.1 < $1.1 }
    }
}
