import Foundation
import Kingfisher
import Testing

/// Runs the cheat sheet's snippets that need neither the network nor the shared cache: on the
/// samples of the repository and on a cache in a temporary folder.
@Suite struct CheatSheetDocSnippetTests {
    /// The repository's `Samples/NAME`, found from this file's place.
    static func sample(_ name: String) throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let url = root.appendingPathComponent("Samples/\(name)")
        try #require(FileManager.default.fileExists(atPath: url.path), "\(url.path) is missing")
        return url
    }

    /// A new temporary folder, and a cache of its own in it.
    static func temporaryCache() throws -> (cache: ImageCache, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doc-snippets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (try ImageCache(name: "doc-snippets", cacheDirectoryURL: folder), folder)
    }

    @Test func processorsRunOnTheSample() throws {
        let log = PrintLog()
        let snippets = CheatSheetProcessingSnippets(log: log)
        let data = try Data(contentsOf: try Self.sample("kingfisher.jpg"))
        snippets.direct(data: data)
        try snippets.spec(data: data)
        #expect(log.printed.first == "CGSize(width: 200.0, height: 131.5) 2.0 400")
        #expect(log.printed.dropFirst().first?.hasSuffix("CGSize(width: 300.0, height: 200.0)") == true)
    }

    @Test func theCustomProcessorInvertsEveryPixel() throws {
        let pixels: [UInt8] = [10, 20, 30, 255, 0, 0, 0, 0, 40, 50, 60, 128, 255, 255, 255, 255]
        let frame = try #require(ImageFrame(width: 2, height: 2, pixels: pixels))
        let image = KFCrossPlatformImage(frame: frame)
        let inverted = try #require(InvertProcessor().process(item: .image(image), options: KingfisherParsedOptionsInfo(nil)))
        #expect(inverted.firstFrame.pixels == [245, 235, 225, 255, 0, 0, 0, 0, 88, 78, 68, 128, 0, 0, 0, 255])
    }

    @Test func theCacheSnippetsWorkOnACacheOfTheirOwn() async throws {
        let log = PrintLog()
        let snippets = CheatSheetCacheSnippets(log: log)
        let (cache, folder) = try Self.temporaryCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try KFCrossPlatformImage(data: Data(contentsOf: try Self.sample("kingfisher.jpg")))
        snippets.limits(cache: cache)
        #expect(cache.diskStorage.config.sizeLimit == 500 * 1024 * 1024)
        try await snippets.storeAndRetrieve(cache: cache, image: image)
        #expect(log.printed.last == "true disk")
        let url = try Self.sample("kingfisher.jpg")
        let processor = DownsamplingImageProcessor(size: CGSize(width: 64, height: 64))
        try await cache.store(image, forKey: url.cacheKey, processorIdentifier: processor.identifier)
        snippets.isCached(cache: cache, url: url)
        #expect(log.printed.dropLast().last == "true memory")
        try await snippets.remove(cache: cache, url: url)
        #expect(log.printed.last == "0 bytes on disk")
    }

    @Test func theAnimatorPlaysTheSpinnerTwice() async throws {
        let log = PrintLog()
        try await CheatSheetAnimationSnippets(log: log).animator(gifData: Data(contentsOf: try Self.sample("spinner.gif")))
        let line = try #require(log.printed.first)
        #expect(line.hasSuffix("frames, 2 loops played"))
    }

    @Test func anImageIsReadWithoutThePipeline() throws {
        let log = PrintLog()
        try CheatSheetAnimationSnippets(log: log).withoutPipeline(fileURL: try Self.sample("kingfisher.jpg"))
        let line = try #require(log.printed.first)
        #expect(line.hasPrefix("JPEG (width: 640, height: 420) "))
    }
}
