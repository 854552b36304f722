import Foundation
import Synchronization
// snippet: readme-first-example
import Kingfisher
// end snippet

/// The README's first example, run by DocSnippetTests: what it prints is collected by the
/// `print(_:)` method below, which the example's unqualified `print` calls, and compared with the
/// output the README shows. It reads `Samples/kingfisher.jpg` relative to the working directory,
/// as the README's reader does from the repository root.
final class ReadmeFirstExample: Sendable {
    private let printed = Mutex<[String]>([])

    /// The lines the example printed, in order.
    var lines: [String] { printed.withLock { $0 } }

    /// Keeps one printed line.
    func print(_ line: String) {
        printed.withLock { $0.append(line) }
    }

    /// The example, as the README shows it.
    func run() async throws {
        // snippet: readme-first-example
        // A 200-point thumbnail with round corners, made once and kept in memory and on disk.
        let source = URL(fileURLWithPath: "Samples/kingfisher.jpg")   // or an http(s) URL
        let processor = DownsamplingImageProcessor(size: CGSize(width: 200, height: 200))
            |> RoundCornerImageProcessor(cornerRadius: 20)
        let options: KingfisherOptionsInfo = [
            .processor(processor),
            .cacheSerializer(FormatIndicatedCacheSerializer.png),   // keeps the corners transparent
        ]

        let result = try await KingfisherManager.shared.retrieveImage(with: source, options: options)
        let image = result.image
        print("\(Int(image.size.width))×\(Int(image.size.height)) points, opaque: \(image.isOpaque)")
        try image.kf.pngRepresentation()?.write(to: URL(fileURLWithPath: "/tmp/thumbnail.png"))

        // Asked again, it comes from the memory cache, under the source's key and this identifier.
        let again = try await KingfisherManager.shared.retrieveImage(with: source, options: options)
        print("again from \(again.cacheType): \(processor.identifier)")
        // end snippet
    }
}
