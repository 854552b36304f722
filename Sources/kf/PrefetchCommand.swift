import ArgumentParser
import Foundation
import Kingfisher

/// `kf prefetch`: fill the cache with many images, as `ImagePrefetcher` does in an app.
struct PrefetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Download images into the cache ahead of time, several at once.",
        discussion: """
        An image already cached (under its URL and the --processor) is skipped; the others are \
        downloaded, processed and written to the disk cache. A URL given more than once counts once. \
        On a terminal a progress bar goes to standard error, otherwise a line every tenth of the \
        work. At the end a summary goes to standard output (with --json, one last line \
        {"completed":N,"skipped":N,"failed":N}); the failed URLs go to standard error. Exit status \
        1 when any image failed.

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

    @Flag(help: "End with one JSON line of counts instead of a text summary.")
    var json = false

    /// The final counts.
    struct Summary: Encodable {
        var completed: Int
        var skipped: Int
        var failed: Int
    }

    func run() throws {
        guard concurrency >= 1 else { throw CLIError.usage("--concurrency must be at least 1; got \(concurrency)") }
        var all = inputs
        if let list { all += try Self.readList(list) }
        guard !all.isEmpty else { throw CLIError.usage("give URLs or --file LIST") }
        let chain = try Retrieval.processor(processor)
        var seen = Set<String>()
        let sources = try all.map(Retrieval.source).filter { seen.insert($0.cacheKey).inserted }

        let cache = try location.openCache()
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let bar = ProgressReporter(total: sources.count, onTerminal: isatty(STDERR_FILENO) == 1)
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        let start = ContinuousClock.now
        let prefetcher = ImagePrefetcher(
            sources: sources, options: [.processor(chain)], manager: manager,
            progressBlock: { skipped, failed, completed in
                bar.update(done: skipped.count + failed.count + completed.count, failed: failed.count)
            },
            completionHandler: { skipped, failed, completed in
                outcome.set(Summary(completed: completed.count, skipped: skipped.count, failed: failed.count),
                            failed: failed.map(\.description))
                done.signal()
            })
        prefetcher.maxConcurrentDownloads = concurrency
        prefetcher.start()
        done.wait()
        bar.finish()
        let elapsed = ContinuousClock.now - start
        let (summary, failedURLs) = outcome.value
        for url in failedURLs { printError("kf: failed: \(url)") }
        if json {
            try CacheText.printJSON(summary)
        } else {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(String(format: "%d images: %d completed, %d skipped, %d failed in %.2f s",
                         sources.count, summary.completed, summary.skipped, summary.failed, seconds))
        }
        if summary.failed > 0 {
            throw CLIError.failure("\(summary.failed) of \(sources.count) images failed")
        }
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
