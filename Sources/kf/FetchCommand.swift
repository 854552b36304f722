import ArgumentParser
import Foundation
import Kingfisher

/// `kf fetch`: retrieve images through the cache, as an app's `retrieveImage` call would.
struct FetchCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Retrieve images through the cache: memory, then disk, then the network or the file.",
        discussion: """
        Each input is an http(s) URL or an image file. An input given several times is retrieved \
        once. For each input one line on standard output tells where the image came from \
        (cacheType none, memory or disk), its pixel size and format, and the file written with -o \
        (with --json, one JSON object per input, failures included). A failed input is one line \
        on standard error, 'kf: INPUT: what went wrong'. With several inputs a progress bar goes \
        to standard error on a terminal, otherwise a line every tenth of the work.

        Without --processor the image is cached as the bytes downloaded (or read), checked by \
        their header without decoding them; --re-encode caches it decoded and encoded again in \
        its format instead (JPEG at quality 1, Kingfisher's default). With --processor the \
        processed image is cached, encoded in the original's format.

        -o DIR (an existing folder, or a path ending in '/') writes each image into DIR in its \
        own format, named from the URL's last path component with that format's extension and \
        made unique; -o FILE needs a single input and is written in the format its extension \
        names (.jpg or .jpeg JPEG, .png PNG, .webp WebP, .gif GIF, .avif AVIF, .jxl JPEG XL, \
        .heic HEIC; any other, its own format). Bytes already in that format (the original \
        without --processor, the cached processed image with it) are written unchanged; \
        otherwise the image is encoded, except as HEIC, which Kingfisher reads but cannot write. \
        The format on the line is the format written.

        Exit status: 0 when every input was retrieved, 1 when any failed, 2 on a usage error.

        \(ProcessorSpec.grammar)
        """
    )

    @Argument(help: ArgumentHelp("The images: http(s) URLs or files.", valueName: "URL|FILE"))
    var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the images to FILE (one input) or into DIR.", valueName: "FILE|DIR"))
    var output: String?

    @Option(help: ArgumentHelp("The processor chain, e.g. 'downsample(200x200)|>round(20)'.", valueName: "SPEC"))
    var processor: String?

    @OptionGroup var location: CacheLocationOptions

    @Flag(name: .customLong("force-refresh"), help: "Skip the cache lookup and retrieve again (the result is still cached).")
    var forceRefresh = false

    @Flag(name: .customLong("only-from-cache"), help: "Answer only from the cache; a miss is an error and nothing is downloaded.")
    var onlyFromCache = false

    @Flag(name: .customLong("re-encode"), help: "Without --processor, cache the image decoded and encoded again (JPEG at quality 1) instead of the bytes downloaded.")
    var reencode = false

    @Flag(help: "Print one JSON object per input instead of text.")
    var json = false

    @OptionGroup var outputOptions: OutputOptions

    /// One input's outcome, in JSON field order.
    struct Line: Encodable {
        var url: String
        var cacheType: String?
        var width: Int?
        var height: Int?
        var format: String?
        var output: String?
        var error: String?
    }

    func run() throws {
        guard !inputs.isEmpty else { throw CLIError.usage("give at least one URL or file") }
        guard !(forceRefresh && onlyFromCache) else {
            throw CLIError.usage("--force-refresh and --only-from-cache exclude each other")
        }
        let chain = try Retrieval.processor(processor)
        let sources = try inputs.map(Retrieval.source)
        // The unique inputs in the order first given.
        var firstIndex: [String: Int] = [:]
        for (index, source) in sources.enumerated() where firstIndex[source.cacheKey] == nil {
            firstIndex[source.cacheKey] = index
        }
        let unique = firstIndex.values.sorted()
        let destination = try FetchDestination(output: output, uniqueCount: unique.count)

        let cache = try location.openCache(output: outputOptions)
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let storage = Storage(chain: chain, reencode: reencode)
        var options: KingfisherOptionsInfo = storage.options(chain: chain) + [.waitForCache, .callbackQueue(.untouch)]
        if forceRefresh { options.append(.forceRefresh) }
        if onlyFromCache { options.append(.onlyFromCache) }
        let processed = !chain.identifier.isEmpty
        let optionsFor: (Source) -> KingfisherOptionsInfo = { source in
            guard processed else { return options }
            // Processed from an original found in the cache, the image keeps that original's format.
            let original = Retrieval.cachedFormat(of: source, identifier: "", in: cache)
            return options + [.cacheSerializer(OriginalFormatSerializer(fallback: original))]
        }
        let bar = unique.count >= 2 && outputOptions.showsProgress ? ProgressReporter(label: "fetch", total: unique.count) : nil
        let collected = Locked(Tally())
        Retrieval.retrieveAll(unique.map { sources[$0] }, manager: manager, options: optionsFor, concurrency: 8) { index, outcome, elapsed in
            // Drawn under the lock, so no count is overtaken by a smaller one.
            collected.update { tally in
                let (done, failed) = tally.record(outcome, elapsed: elapsed, at: index)
                bar?.update(done: done, failed: failed)
            }
        }
        bar?.finish()

        let results = collected.value.results
        let positions = Dictionary(uniqueKeysWithValues: unique.enumerated().map { ($1, $0) })
        var names = OutputNames()
        var lines: [String: Line] = [:]
        var failures = 0
        // In the order given: a unique input's error or verbose line on standard error, then
        // each input's line on standard output.
        for (index, source) in sources.enumerated() {
            let input = inputs[index]
            if let position = positions[index] {
                let (line, failure) = self.line(for: source, input: input, outcome: results[position],
                                                cache: cache, chain: chain, storage: storage, destination: destination,
                                                names: &names)
                lines[source.cacheKey] = line
                if let failure {
                    failures += 1
                    printError("kf: \(input): " + ErrorText.reason(
                        of: failure, verbose: outputOptions.verbose, url: Retrieval.remoteURL(input)))
                } else if case let (.success(value), elapsed)? = results[position] {
                    outputOptions.note("\(input): \(Retrieval.origin(of: source, cacheType: value.cacheType)), \(milliseconds(elapsed))")
                }
            }
            guard let line = lines[source.cacheKey] else { continue }
            if json {
                try CacheText.printJSON(line)
            } else if line.error == nil, !outputOptions.quiet {
                let size = "\(line.width ?? 0)×\(line.height ?? 0)"
                let written = line.output.map { " -> \($0)" } ?? ""
                print("\(line.url): \(line.cacheType ?? "none"), \(size) \(line.format ?? "")\(written)")
            }
        }
        guard failures > 0 else { return }
        throw unique.count > 1 ? CLIError.failure("\(failures) of \(unique.count) inputs failed") : CLIError.reported
    }

    /// The bytes, format and size of a retrieved image.
    ///
    /// Without a processor the bytes are those downloaded (or read) when the image was retrieved
    /// now, else the cache entry; with one, the cache entry of the processed image, written before
    /// the retrieval ended (`.waitForCache`). Under ``Storage/original`` the retrieval decoded
    /// nothing, and the size comes from the bytes' header.
    static func retrieved(
        _ value: RetrieveImageResult, source: Source, cache: ImageCache, chain: any ImageProcessor, storage: Storage
    ) throws -> RetrievedImage {
        let processed = !chain.identifier.isEmpty
        let entry = { Retrieval.cachedBytes(of: source, identifier: chain.identifier, in: cache) }
        let bytes: Data?
        if !processed, value.cacheType == .none {
            bytes = value.data()
        } else {
            bytes = entry() ?? (processed ? nil : value.data())
        }
        switch storage {
        case .original:
            guard let bytes else { throw Reason(description: "the image bytes are missing from the cache") }
            let header = try ImageHeader(data: bytes)
            let size = header.orientedPixelSize
            return RetrievedImage(bytes: bytes, format: header.format, width: size.width, height: size.height, image: nil)
        case .reencoded:
            // A processed image without its cache entry takes the original's format.
            let format = (bytes ?? value.data()).map { ImageFormat(data: $0) } ?? .unknown
            return RetrievedImage(bytes: bytes, format: format, width: value.image.pixelWidth,
                                  height: value.image.pixelHeight, image: value.image)
        }
    }

    /// The outcomes so far, by index among the unique inputs.
    struct Tally: Sendable {
        /// Each finished input's outcome and time, by its index among the unique inputs.
        var results: [Int: (Retrieval.Outcome, Duration)] = [:]
        /// How many of them failed.
        var failed = 0

        /// Records one outcome; returns how many are done and how many of them failed.
        mutating func record(_ outcome: Retrieval.Outcome, elapsed: Duration, at index: Int) -> (Int, Int) {
            results[index] = (outcome, elapsed)
            if case .failure = outcome { failed += 1 }
            return (results.count, failed)
        }
    }

    /// The line for one unique input, and its error when it failed.
    private func line(
        for source: Source, input: String, outcome: (Retrieval.Outcome, Duration)?,
        cache: ImageCache, chain: any ImageProcessor, storage: Storage, destination: FetchDestination,
        names: inout OutputNames
    ) -> (Line, (any Error)?) {
        var line = Line(url: source.url?.absoluteString ?? input)
        let failure: any Error
        switch outcome?.0 {
        case .success(let value)?:
            line.cacheType = Retrieval.name(of: value.cacheType)
            do {
                let image = try Self.retrieved(value, source: source, cache: cache, chain: chain, storage: storage)
                line.width = image.width
                line.height = image.height
                line.format = image.format.rawValue
                if let (path, format) = try destination.write(image, source: source, names: &names) {
                    line.output = path
                    line.format = format.rawValue
                }
                return (line, nil)
            } catch {
                failure = error
            }
        case .failure(let error)?:
            failure = error
        case nil:
            failure = Reason(description: "not retrieved")
        }
        line.error = oneLine("\(input): \(describe(failure, url: Retrieval.remoteURL(input)))")
        return (line, failure)
    }
}
