import ArgumentParser
import Foundation
import Kingfisher

/// `kf fetch`: retrieve images through the cache, as an app's `retrieveImage` call would.
struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Retrieve images through the cache: memory, then disk, then the network or the file.",
        discussion: """
        Each input is an http(s) URL or an image file. An input given several times is retrieved \
        once. One line per input tells where the image came from (cacheType none, memory or disk), \
        its pixel size and format, and the file written with -o; or the error, naming the input \
        and the cause. Exit status 1 when any input failed.

        -o DIR (an existing folder, or a path ending in '/') writes each image into DIR, named \
        from the URL's last path component and made unique; -o FILE needs a single input. The \
        image is written in its own format: the original bytes without --processor, the \
        processed image encoded in the original's format with it.

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

    @Flag(help: "Print one JSON object per input instead of text.")
    var json = false

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
        var unique: [String: Source] = [:]
        for source in sources { unique[source.cacheKey] = source }
        let destination = try outputDestination(uniqueCount: unique.count)

        let cache = try location.openCache()
        let manager = KingfisherManager(downloader: .default, cache: cache)
        var options: KingfisherOptionsInfo = [.processor(chain), .waitForCache, .callbackQueue(.untouch)]
        if forceRefresh { options.append(.forceRefresh) }
        if onlyFromCache { options.append(.onlyFromCache) }
        let results = Retrieval.retrieveAll(Array(unique.values), manager: manager, options: options, concurrency: 8)

        var names = OutputNames()
        var lines: [String: Line] = [:]
        var failures = 0
        for (index, source) in sources.enumerated() {
            let key = source.cacheKey
            if lines[key] == nil {
                lines[key] = line(for: source, input: inputs[index], result: results[key],
                                  cache: cache, chain: chain, destination: destination, names: &names)
            }
            guard let line = lines[key] else { continue }
            if line.error != nil { failures += 1 }
            if json {
                try CacheText.printJSON(line)
            } else if let error = line.error {
                print("\(line.url): error: \(error)")
            } else {
                let size = "\(line.width ?? 0)×\(line.height ?? 0)"
                let written = line.output.map { " -> \($0)" } ?? ""
                print("\(line.url): \(line.cacheType ?? "none"), \(size) \(line.format ?? "")\(written)")
            }
        }
        if failures > 0 {
            throw CLIError.failure("\(failures) of \(inputs.count) inputs failed")
        }
    }

    /// Where `-o` points: nothing, one file, or a folder (created when missing).
    enum Destination { case none, file(URL), directory(URL) }

    private func outputDestination(uniqueCount: Int) throws -> Destination {
        guard let output else { return .none }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        if output.hasSuffix("/") || (exists && isDirectory.boolValue) {
            let url = URL(fileURLWithPath: output, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw CLIError.failure("cannot create \(output): \(describe(error))")
            }
            return .directory(url)
        }
        guard uniqueCount == 1 else {
            throw CLIError.usage("-o FILE takes one input; for several give a folder (an existing one, or a path ending in '/')")
        }
        return .file(URL(fileURLWithPath: output))
    }

    private func line(
        for source: Source, input: String, result: Result<RetrieveImageResult, KingfisherError>?,
        cache: ImageCache, chain: any ImageProcessor, destination: Destination, names: inout OutputNames
    ) -> Line {
        var line = Line(url: source.url?.absoluteString ?? input)
        switch result {
        case nil:
            line.error = "\(input): not retrieved"
        case .failure(let error):
            line.error = "\(input): \(error.errorDescription ?? "\(error)")"
        case .success(let value):
            line.cacheType = Retrieval.name(of: value.cacheType)
            line.width = value.image.pixelWidth
            line.height = value.image.pixelHeight
            let original = value.data() ?? Retrieval.cachedBytes(of: source, identifier: chain.identifier, in: cache)
            let format = original.map { ImageFormat(data: $0) } ?? .unknown
            line.format = format.rawValue
            do {
                line.output = try write(value.image, original: original, format: format, source: source,
                                        unprocessed: chain.identifier.isEmpty, to: destination, names: &names)
            } catch {
                line.error = "\(input): \(error)"
            }
        }
        return line
    }

    private func write(
        _ image: KFCrossPlatformImage, original: Data?, format: ImageFormat, source: Source, unprocessed: Bool,
        to destination: Destination, names: inout OutputNames
    ) throws -> String? {
        let url: URL
        switch destination {
        case .none: return nil
        case .file(let file): url = file
        case .directory(let folder): url = names.unique(in: folder, for: source, format: format)
        }
        let bytes: Data
        if unprocessed, let original {
            bytes = original
        } else if let encoded = image.kf.data(format: format) {
            bytes = encoded
        } else {
            throw Retrieval.Failure(description: "the image could not be encoded as \(format)")
        }
        do {
            try bytes.write(to: url, options: .atomic)
        } catch {
            throw Retrieval.Failure(description: "cannot write \(url.path): \(describe(error))")
        }
        return url.path
    }
}

/// Output file names for `-o DIR`: the URL's last path component, made unique within the run
/// and the folder.
struct OutputNames {
    private var used: Set<String> = []

    mutating func unique(in folder: URL, for source: Source, format: ImageFormat) -> URL {
        var name = source.url?.lastPathComponent ?? ""
        if name.isEmpty || name == "/" { name = "image" }
        let base = (name as NSString).deletingPathExtension
        var ext = (name as NSString).pathExtension
        if ext.isEmpty { ext = format.fileExtension ?? "img" }
        var candidate = "\(base).\(ext)"
        var counter = 1
        while used.contains(candidate) || FileManager.default.fileExists(atPath: folder.appendingPathComponent(candidate).path) {
            candidate = "\(base)-\(counter).\(ext)"
            counter += 1
        }
        used.insert(candidate)
        return folder.appendingPathComponent(candidate)
    }
}
