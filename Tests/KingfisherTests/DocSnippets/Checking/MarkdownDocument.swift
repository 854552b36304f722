import Foundation

/// A fenced code block of a markdown file, its text with the fence's indentation removed.
struct FencedBlock {
    /// The markdown file, relative to the repository root.
    let file: String
    /// The 1-based line of the opening fence.
    let line: Int
    /// The first word after the fence (`swift`, `console`, …), empty for a plain block.
    let language: String
    /// The lines between the fences, without their common indentation and outer blank lines.
    let text: String
}

/// A link of a markdown file: its target as written and the line it is on.
struct MarkdownLink {
    let file: String
    let line: Int
    let target: String
}

/// One markdown file of the documentation: its fenced blocks, its links and its headings' anchors.
struct MarkdownDocument {
    /// The path relative to the repository root, as failures name it.
    let path: String
    let blocks: [FencedBlock]
    let links: [MarkdownLink]
    /// The anchors GitHub makes of the headings (`## Running a fleet` is `running-a-fleet`).
    let anchors: Set<String>

    /// Reads and parses `path` under `root`.
    init(root: URL, path: String) throws {
        self.path = path
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var blocks: [FencedBlock] = []
        var links: [MarkdownLink] = []
        var anchors = Set<String>()
        var open: (line: Int, indent: Int, language: String, body: [String])?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append(FencedBlock(file: path, line: block.line, language: block.language,
                                              text: SnippetText.normalized(block.body)))
                    open = nil
                } else {
                    block.body.append(String(line.dropFirst(min(block.indent, line.prefix { $0 == " " }.count))))
                    open = block
                }
                continue
            }
            if trimmed.hasPrefix("```") {
                let language = trimmed.dropFirst(3).split(separator: " ").first.map(String.init) ?? ""
                open = (index + 1, line.prefix { $0 == " " }.count, language, [])
                continue
            }
            if trimmed.hasPrefix("#") {
                let level = trimmed.prefix { $0 == "#" }.count
                if level <= 6, trimmed.dropFirst(level).first == " " {
                    anchors.insert(Self.uniqueAnchor(Self.anchor(of: String(trimmed.dropFirst(level))), in: anchors))
                }
            }
            links += Self.linkTargets(in: line).map { MarkdownLink(file: path, line: index + 1, target: $0) }
        }
        self.blocks = blocks
        self.links = links
        self.anchors = anchors
    }

    /// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_` kept, spaces made `-`.
    static func anchor(of heading: String) -> String {
        let plain = heading.trimmingCharacters(in: .whitespaces)
            .replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        var slug = ""
        for character in plain.lowercased() {
            if character == " " {
                slug.append("-")
            } else if character == "-" || character == "_" || character.isLetter || character.isNumber {
                slug.append(character)
            }
        }
        return slug
    }

    /// `anchor`, or `anchor-1`, `anchor-2`… when a heading before it made the same one.
    private static func uniqueAnchor(_ anchor: String, in taken: Set<String>) -> String {
        guard taken.contains(anchor) else { return anchor }
        var suffix = 1
        while taken.contains("\(anchor)-\(suffix)") { suffix += 1 }
        return "\(anchor)-\(suffix)"
    }

    /// The targets of the inline links and images on `line` and of a reference definition, outside code spans.
    static func linkTargets(in line: String) -> [String] {
        let prose = line.replacingOccurrences(of: "`[^`]*`", with: "", options: .regularExpression)
        var targets: [String] = []
        let patterns = [#"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#, #"^\s*\[[^\]]+\]:\s*<?([^\s>]+)>?"#]
        for pattern in patterns {
            guard let regex = try? NSRegularExpression(pattern: pattern) else { continue }
            let range = NSRange(prose.startIndex..., in: prose)
            for match in regex.matches(in: prose, range: range) {
                if let targetRange = Range(match.range(at: 1), in: prose) {
                    targets.append(String(prose[targetRange]))
                }
            }
        }
        return targets
    }
}
