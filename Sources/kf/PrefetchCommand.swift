import ArgumentParser
import Foundation
import Kingfisher

/// `kf prefetch`: fill the cache with many images, by the rule `ImagePrefetcher` follows in an app.
struct PrefetchCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download images into the cache ahead of time, several at once.",
        discussion: """
        An image already cached (under its URL and the --processor) is skipped; the others are \
        downloaded, processed and written to the disk cache, as ImagePrefetcher does. Without \
        --processor the bytes downloaded are cached as they are, checked by their header without \
        decoding them; --re-encode caches each image decoded and encoded again in its format \
        instead (JPEG at quality 1, Kingfisher's default). A URL given \
        more than once counts once. On a terminal a progress bar goes to standard error, \
        otherwise a line every tenth of the work. At the end a summary goes to standard output \
        (with --json, one last line {"completed":N,"skipped":N,"failed":N}); each failed URL is \
        one line on standard error, 'kf: URL: what went wrong'.

        Exit status: 0 when every image was cached, 1 when any failed, 2 on a usage error.

        \(ProcessorSpec.grammar)
        """
    )

    @Argument(help: ArgumentHelp("The images: http(s) URLs or files.", valueName: "URL"))
    var inputs: [String] = []

    @Option(name: .customLong("file"), help: ArgumentHelp(
        "Read the URLs from LIST, one a line ('-' for standard input); blank lines and lines starting with # are ignored.",
        valueName: "LIST"))
    var list: String?

    @Option(help: "How many images to retrieve at once (default 5).")
    var concurrency = 5

    @Option(help: ArgumentHelp("The processor chain, e.g. 'downsample(64x64)'.", valueName: "SPEC"))
    var processor: String?

    @OptionGroup var location: CacheLocationOptions

    @Flag(name: .customLong("re-encode"), help: "Without --processor, cache each image decoded and encoded again (JPEG at quality 1) instead of the bytes downloaded.")
    var reencode = false

    @Flag(help: "End with one JSON line of counts instead of a text summary.")
    var json = false

    @OptionGroup var outputOptions: OutputOptions

    /// The final counts.
    struct Summary: Encodable, Sendable {
        /// Retrieved now and cached.
        var completed = 0
        /// Already cached.
        var skipped = 0
        /// Not cached: the retrieval failed.
        var failed = 0
    }

    /// How one source ended, without its image.
    enum Record: Sendable {
        /// Cached: `.none` when it was retrieved now (completed), otherwise where it already was
        /// (skipped).
        case cached(CacheType, Duration)
        /// It failed.
        case failed(KingfisherError)
    }

    /// The counts so far, and the records the report needs (failures; all with --verbose).
    struct Tally: Sendable {
        /// The counts.
        var summary = Summary()
        /// Records by source index.
        var records: [Int: Record] = [:]
    }

    func run() throws {
        guard concurrency >= 1 else { throw CLIError.usage("--concurrency must be at least 1; got \(concurrency)") }
        var all = inputs
        if let list { all += try Self.readList(list) }
        guard !all.isEmpty else { throw CLIError.usage("give URLs or --file LIST") }
        let chain = try Retrieval.processor(processor)
        var seen = Set<String>()
        var names: [String] = []
        var sources: [Source] = []
        for input in all {
            let source = try Retrieval.source(input)
            guard seen.insert(source.cacheKey).inserted else { continue }
            names.append(input)
            sources.append(source)
        }

        let cache = try location.openCache(output: outputOptions)
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let bar = outputOptions.showsProgress ? ProgressReporter(label: "prefetch", total: sources.count) : nil
        let tally = Locked(Tally())
        let keepAll = outputOptions.verbose
        let indexByKey = Dictionary(sources.enumerated().map { ($1.cacheKey, $0) }, uniquingKeysWith: { first, _ in first })
        let done = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        // The prefetcher reports one at a time, in order: each source's end, then the progress
        // that counts it, and the completion last. The images go to disk only: keeping them in
        // memory would serve nothing in a process that ends here.
        let prefetcher = ImagePrefetcher(
            sources: sources, options: Storage(chain: chain, reencode: reencode).options(chain: chain) + [.memoryCacheExpiration(.expired)],
            manager: manager,
            progressBlock: { skipped, failed, completed in
                bar?.update(done: skipped.count + failed.count + completed.count, failed: failed.count)
            },
            completionHandler: { skipped, failed, completed in
                tally.update { $0.summary = Summary(completed: completed.count, skipped: skipped.count, failed: failed.count) }
                done.signal()
            })
        prefetcher.sourceFinishedBlock = { source, outcome, duration in
            guard let index = indexByKey[source.cacheKey] else { return }
            // Images are not kept, and successes only for --verbose: a long prefetch stays small.
            switch outcome {
            case .failed(let error): tally.update { $0.records[index] = .failed(error) }
            case .skipped(let cacheType) where keepAll: tally.update { $0.records[index] = .cached(cacheType, duration) }
            case .completed where keepAll: tally.update { $0.records[index] = .cached(.none, duration) }
            case .skipped, .completed: break
            }
        }
        prefetcher.maxConcurrentDownloads = concurrency
        prefetcher.start()
        done.wait()
        bar?.finish()
        let elapsed = ContinuousClock.now - start
        let (summary, records) = (tally.value.summary, tally.value.records)
        for index in records.keys.sorted() {
            switch records[index] {
            case .failed(let error)?:
                printError("kf: \(names[index]): " + ErrorText.reason(
                    of: error, verbose: outputOptions.verbose, url: sources[index].url))
            case let .cached(cacheType, took)?:
                let what = cacheType.cached ? "skipped" : "completed"
                outputOptions.note("\(names[index]): \(Retrieval.origin(of: sources[index], cacheType: cacheType)), \(what), \(milliseconds(took))")
            case nil:
                break
            }
        }
        if json {
            try CacheText.printJSON(summary)
        } else if !outputOptions.quiet {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(String(format: "%d images: %d completed, %d skipped, %d failed in %.2f s",
                         sources.count, summary.completed, summary.skipped, summary.failed, seconds))
        }
        guard summary.failed > 0 else { return }
        throw sources.count > 1 ? CLIError.failure("\(summary.failed) of \(sources.count) inputs failed") : CLIError.reported
    }

    /// The URLs of a list file, or of standard input for `-`.
    static func readList(_ path: String) throws -> [String] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = try readInput(path)
        }
        return String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }
}
