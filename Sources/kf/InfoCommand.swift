import ArgumentParser
import Foundation
import Kingfisher
import KingfisherSynchronization

/// `kf info FILE`: what an image's header says, without decoding its pixels.
struct InfoCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show an image's format, upright pixel size, frames, loop count, EXIF orientation and cache state.",
        discussion: """
        Reads only the header unless --verify is given, which decodes every frame too. For an \
        http(s) URL the cache state (none or disk) is that of the URL's image as processed by \
        --processor (the unprocessed image without it); the bytes come from that cache entry when \
        it exists, otherwise the original is downloaded without being cached. For a file the \
        cache state is reported when --cache-dir is given. The report goes to standard output, \
        also with --quiet.

        Exit status: 0 when the image was read, 1 when it could not be read, downloaded or \
        decoded, 2 on a usage error.
        """
    )

    @Argument(help: ArgumentHelp("The image: a file (PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL) or an http(s) URL.", valueName: "FILE|URL"))
    var file: String

    @OptionGroup var location: CacheLocationOptions

    @Option(help: ArgumentHelp("Look up the cache entry of this processor chain, as 'kf fetch --processor' stored it.", valueName: "SPEC"))
    var processor: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Flag(help: "Decode the whole image as well, so a damaged body is reported.")
    var verify = false

    @Flag(help: "List how long each frame of an animation shows (from the headers; no pixel is decoded).")
    var frames = false

    @OptionGroup var outputOptions: OutputOptions

    /// The facts printed, in JSON field order.
    struct Report: Encodable {
        var file: String
        var format: String
        var width: Int
        var height: Int
        var frames: Int
        var loopCount: Int
        var orientation: Int
        var hasAlpha: Bool
        var cache: String?
        /// Seconds per frame, with --frames (a still image has one frame of 0).
        var frameDurations: [Double]?
    }

    func run() throws {
        var cacheState: CacheType?
        let start = ContinuousClock.now
        let data: Data
        let origin: String
        let identifier = try Retrieval.processor(processor).identifier
        if let url = Retrieval.remoteURL(file) {
            let cache = try location.openCache(output: outputOptions)
            let state = cache.imageCachedType(forKey: url.cacheKey, processorIdentifier: identifier)
            cacheState = state
            if state == .disk {
                data = try readInput(cache.cachePath(forKey: url.cacheKey, processorIdentifier: identifier))
                origin = "the disk cache"
            } else {
                data = try about(file) { try Self.download(url) }
                origin = "the network"
            }
        } else {
            data = try readInput(file)
            origin = "the file"
        }
        outputOptions.note("\(file): \(data.count) bytes read from \(origin) in \(milliseconds(ContinuousClock.now - start))")
        if Retrieval.remoteURL(file) == nil, location.cacheDirectory != nil {
            cacheState = try location.openCache(output: outputOptions)
                .imageCachedType(forKey: URL(fileURLWithPath: file).cacheKey, processorIdentifier: identifier)
        }
        let header = try about(file) { try ImageHeader(data: data) }
        var report = Report(
            file: file, format: header.format.rawValue,
            width: header.orientedPixelSize.width, height: header.orientedPixelSize.height,
            frames: header.frameCount, loopCount: header.loopCount,
            orientation: header.orientation.rawValue, hasAlpha: header.hasAlpha,
            cache: cacheState.map(Retrieval.name),
            frameDurations: frames ? (header.frameDurations.isEmpty ? [0] : header.frameDurations) : nil)
        if verify {
            let (image, took) = try about(file) {
                try timed { try hidingLibraryDiagnostics(verbose: outputOptions.verbose) { try KFCrossPlatformImage(data: data) } }
            }
            outputOptions.note("\(file): decoded \(image.frames.count) frame(s) of \(image.pixelWidth)×\(image.pixelHeight) in \(milliseconds(took))")
            report.width = image.pixelWidth
            report.height = image.pixelHeight
            report.frames = image.frames.count
            report.hasAlpha = !image.isOpaque
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("""
            file:        \(report.file)
            format:      \(report.format)
            size:        \(report.width)×\(report.height) pixels
            frames:      \(report.frames)
            loop count:  \(report.loopCount == 0 && report.frames > 1 ? "0 (forever)" : String(report.loopCount))
            orientation: \(report.orientation)
            alpha:       \(report.hasAlpha ? "yes" : "no")
            """)
            if let cache = report.cache { print("cache:       \(cache)") }
            if let durations = report.frameDurations {
                let total = durations.reduce(0, +)
                print("duration:    \(String(format: "%.3f", total)) s per loop")
                for (index, duration) in durations.enumerated() {
                    print("frame \(index + 1):\(String(repeating: " ", count: max(1, 6 - String(index + 1).count)))\(String(format: "%.3f", duration)) s")
                }
            }
        }
    }

    /// The bytes at `url`, downloaded without touching the cache.
    private static func download(_ url: URL) throws -> Data {
        let box = Mutex<Result<ImageLoadingResult, KingfisherError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        ImageDownloader.default.downloadImage(with: url, options: [.callbackQueue(.untouch)]) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        switch box.withLock({ $0 }) {
        case .success(let loaded)?: return loaded.originalData
        case .failure(let error)?: throw error
        case nil: throw Reason(description: "the download ended without a result")
        }
    }
}
