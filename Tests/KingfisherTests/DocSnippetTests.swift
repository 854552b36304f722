import Foundation
import Testing

/// The documentation cannot rot: every ```swift block of README.md and docs/*.md is the text of a
/// snippet the suites compile (Tests/*/DocSnippets, marked `// snippet: NAME` … `// end snippet`),
/// every relative link leads to a file and heading that exist, and the README's first example
/// prints what the README shows. The ```console transcripts are run by scripts/check-docs.sh.
@Suite struct DocSnippetTests {
    /// The repository root, three folders above this file.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where snippets live: one folder per test target that compiles them (the server's routes
    /// need KingfisherServer, the GTK and Vapor adapters their own packages, built by scripts/test.sh).
    static let snippetFolders = [
        "Tests/KingfisherTests/DocSnippets",
        "Tests/KingfisherServerTests/DocSnippets",
        "Integrations/GTK/Tests/KingfisherGTKTests/DocSnippets",
        "Integrations/Vapor/KingfisherVapor/Tests/KingfisherVaporTests/DocSnippets",
    ]

    /// README.md and every docs/*.md, parsed.
    static func documents() throws -> [MarkdownDocument] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        return try (["README.md"] + guides).map { try MarkdownDocument(root: root, path: $0) }
    }

    /// A package manifest: compiled by scripts/check-docs.sh, since no test target can import PackageDescription.
    static func isManifest(_ block: FencedBlock) -> Bool {
        block.text.hasPrefix("// swift-tools-version:")
    }

    @Test func everySwiftBlockIsTheTextOfACompiledSnippet() throws {
        let documents = try Self.documents()
        let catalog = try SnippetCatalog(root: Self.root, folders: Self.snippetFolders)
        for problem in catalog.problems { Issue.record("\(problem)") }
        var used = Set<String>()
        var checked = 0
        var manifests = 0
        for block in documents.flatMap(\.blocks) where block.language == "swift" {
            if Self.isManifest(block) {
                manifests += 1
                continue
            }
            checked += 1
            if let twin = catalog.twin(of: block.text) {
                used.insert(twin.name)
            } else if let near = catalog.closest(to: block.text) {
                Issue.record("""
                    \(block.file):\(block.line): this ```swift block has no compiled twin; the nearest is \
                    snippet \(near.snippet.name) (\(near.snippet.location)), which differs from line \(near.line) of the block
                    """)
            } else {
                Issue.record("\(block.file):\(block.line): this ```swift block has no compiled twin (no snippets found)")
            }
        }
        for snippet in catalog.snippets.values where !used.contains(snippet.name) {
            Issue.record("\(snippet.location): snippet \(snippet.name) is shown by no ```swift block of the documentation")
        }
        #expect(checked > 0)
        print("""
            DocSnippetTests: \(checked) Swift blocks in \(documents.count) markdown files checked against \
            \(catalog.snippets.count) compiled snippets in \(catalog.fileCount) files; \(manifests) package manifest(s) \
            left to scripts/check-docs.sh
            """)
    }

    @Test func everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws {
        let documents = try Self.documents()
        var anchorsByFile: [String: Set<String>] = [:]
        for document in documents { anchorsByFile[document.path] = document.anchors }
        var checked = 0
        for link in documents.flatMap(\.links) {
            if link.target.range(of: "^[A-Za-z][A-Za-z0-9+.-]*:", options: .regularExpression) != nil { continue }
            checked += 1
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            let pathPart = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let fragment = parts.count > 1 ? String(parts[1]) : ""
            let folder = (link.file as NSString).deletingLastPathComponent
            let target = pathPart.isEmpty ? link.file
                : ((folder as NSString).appendingPathComponent(pathPart) as NSString).standardizingPath
            guard !target.hasPrefix(".."), !target.hasPrefix("/") else {
                Issue.record("\(link.file):\(link.line): \(link.target) leaves the repository")
                continue
            }
            guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(target).path) else {
                Issue.record("\(link.file):\(link.line): \(link.target): no file \(target)")
                continue
            }
            guard !fragment.isEmpty else { continue }
            if anchorsByFile[target] == nil, target.hasSuffix(".md") {
                anchorsByFile[target] = try MarkdownDocument(root: Self.root, path: target).anchors
            }
            guard let anchors = anchorsByFile[target] else {
                Issue.record("\(link.file):\(link.line): \(link.target): #\(fragment) in a file that is not markdown")
                continue
            }
            if !anchors.contains(fragment) {
                Issue.record("\(link.file):\(link.line): \(link.target): no heading #\(fragment) in \(target)")
            }
        }
        #expect(checked > 0)
        print("DocSnippetTests: \(checked) relative links checked")
    }

    @Test func theReadmeFirstExamplePrintsWhatTheReadmeShows() async throws {
        let sample = Self.root.appendingPathComponent("Samples/kingfisher.jpg").path
        try #require(FileManager.default.currentDirectoryPath == Self.root.path || FileManager.default.fileExists(atPath: "Samples/kingfisher.jpg"),
                     "run the tests from the repository root: the example reads Samples/kingfisher.jpg as the README does (\(sample))")
        let readme = try MarkdownDocument(root: Self.root, path: "README.md")
        let catalog = try SnippetCatalog(root: Self.root, folders: Self.snippetFolders)
        let snippet = try #require(catalog.snippets["readme-first-example"])
        let index = try #require(readme.blocks.firstIndex { $0.language == "swift" && $0.text == snippet.text },
                                 "README.md shows the snippet readme-first-example")
        let shown = try #require(readme.blocks.indices.contains(index + 1) ? readme.blocks[index + 1] : nil)
        #expect(shown.language == "text", "README.md:\(shown.line): the example's output follows it in a ```text block")

        let example = ReadmeFirstExample()
        try await example.run()
        #expect(example.lines.joined(separator: "\n") == shown.text, "README.md:\(shown.line)")
        #expect(FileManager.default.fileExists(atPath: "/tmp/thumbnail.png"))
    }
}
