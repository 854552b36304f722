import ArgumentParser
import Foundation
import Kingfisher

/// `kf cache`: look into and tidy the disk cache that `kf fetch` and `kf prefetch` fill.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect, list, clean or clear the disk cache.",
        discussion: """
        Without --cache-dir the cache is Kingfisher's default one, in \
        $XDG_CACHE_HOME/com.onevcat.Kingfisher.ImageCache.default (or ~/.cache/... when \
        XDG_CACHE_HOME is unset). With --cache-dir DIR it is DIR/com.onevcat.Kingfisher.ImageCache.default.

        No cache subcommand creates a folder: a --cache-dir DIR that does not exist is an error, \
        and a cache folder not made yet (by kf fetch or kf prefetch) is an empty cache.

        Exit status (every cache subcommand): 0 on success, 1 when --cache-dir does not exist or \
        the cache folder cannot be read or changed, 2 on a usage error.
        """,
        subcommands: [
            CacheInfoCommand.self, CacheListCommand.self, CacheCleanCommand.self,
            CacheClearCommand.self, CachePathCommand.self,
        ]
    )
}

/// The options every `kf cache` subcommand shares.
struct CacheLocationOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The folder that holds the cache folder (default: $XDG_CACHE_HOME or ~/.cache).",
        valueName: "DIR"))
    var cacheDirectory: String?

    /// What error lines name when the cache fails: the `--cache-dir` folder, or `cache`.
    var label: String { cacheDirectory ?? "cache" }

    /// The disk storage these options name, for `kf cache` subcommands; verbose prints its
    /// folder. Nothing is created: a `--cache-dir` that does not exist (or is not a folder) fails,
    /// and a cache folder not made yet is an empty cache, left uncreated.
    func openStorage(output: OutputOptions) throws -> DiskStorage.Backend<Data> {
        let parent = try existingParent()
        let config = DiskStorage.Config(name: "default", sizeLimit: 0, directory: parent)
        // Only names the folder; with creatingDirectory false it creates nothing.
        let uncreated = DiskStorage.Backend<Data>(noThrowConfig: config, creatingDirectory: false)
        let storage: DiskStorage.Backend<Data>
        if FileManager.default.fileExists(atPath: uncreated.directoryURL.path) {
            storage = try about(label) { try DiskStorage.Backend<Data>(config: config) }
        } else {
            storage = uncreated
        }
        output.note("cache folder: \(storage.directoryURL.path)\(storage === uncreated ? " (not created yet)" : "")")
        return storage
    }

    /// The image cache these options name, for `kf cache` subcommands: over
    /// ``openStorage(output:)``'s storage, so nothing is created.
    func openExistingCache(output: OutputOptions) throws -> ImageCache {
        let storage = try openStorage(output: output)
        return ImageCache(memoryStorage: MemoryStorage.Backend(config: .init(totalCostLimit: 1, cleanInterval: 0)), diskStorage: storage)
    }

    /// The image cache these options name, opened (and created when missing), for the commands
    /// that fill it; verbose prints its folder.
    func openCache(output: OutputOptions) throws -> ImageCache {
        let parent = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let cache = try about(label) { try ImageCache(name: "default", cacheDirectoryURL: parent) }
        output.note("cache folder: \(cache.diskStorage.directoryURL.path)")
        return cache
    }

    /// The `--cache-dir` folder, which must exist; nil for the default one.
    private func existingParent() throws -> URL? {
        guard let cacheDirectory else { return nil }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: cacheDirectory, isDirectory: &isFolder) else {
            throw CLIError.input(cacheDirectory, Reason(description: "the folder does not exist"))
        }
        guard isFolder.boolValue else {
            throw CLIError.input(cacheDirectory, Reason(description: "not a folder"))
        }
        return URL(fileURLWithPath: cacheDirectory, isDirectory: true)
    }
}

/// `kf cache info`: where the cache is, how much it holds and its limits.
struct CacheInfoCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the cache folder, its entries and bytes, limits and the oldest and newest access.",
        discussion: "Exit status: 0 on success, 1 when --cache-dir does not exist or the cache folder cannot be read, 2 on a usage error."
    )

    @OptionGroup var location: CacheLocationOptions

    @OptionGroup var outputOptions: OutputOptions

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        var path: String
        var entries: Int
        var bytes: UInt
        var sizeLimit: UInt
        var expiration: String
        var oldestAccess: String?
        var newestAccess: String?
    }

    func run() throws {
        let storage = try location.openStorage(output: outputOptions)
        let entries = try about(location.label) { try storage.entries() }
        let accesses = entries.map(\.lastAccess)
        let report = Report(
            path: storage.directoryURL.path,
            entries: entries.count,
            bytes: CacheText.totalBytes(entries),
            sizeLimit: storage.config.sizeLimit,
            expiration: CacheText.expiration(storage.config.expiration),
            oldestAccess: accesses.min().map(CacheText.timestamp),
            newestAccess: accesses.max().map(CacheText.timestamp)
        )
        if json {
            try CacheText.printJSON(report)
        } else {
            print("""
            path:          \(report.path)
            entries:       \(report.entries)
            size:          \(CacheText.bytes(report.bytes))
            size limit:    \(report.sizeLimit == 0 ? "none" : CacheText.bytes(report.sizeLimit))
            expiration:    \(report.expiration)
            oldest access: \(report.oldestAccess ?? "-")
            newest access: \(report.newestAccess ?? "-")
            """)
        }
    }
}

/// `kf cache ls`: one line per entry.
struct CacheListCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the cached entries, most recently used first: size, last access, expiry and key.",
        discussion: """
        An entry whose key is unknown (written by a tool that did not record it) shows its file name.

        Exit status: 0 on success, 1 when --cache-dir does not exist or the cache folder cannot be read, 2 on a usage error.
        """
    )

    @OptionGroup var location: CacheLocationOptions

    @OptionGroup var outputOptions: OutputOptions

    @Flag(help: "Print one JSON object per entry instead of text.")
    var json = false

    struct Line: Encodable {
        var key: String?
        var file: String
        var bytes: Int
        var lastAccess: String
        var expires: String?
    }

    func run() throws {
        let storage = try location.openStorage(output: outputOptions)
        let entries = try about(location.label) { try storage.entries() }.sorted { $0.lastAccess > $1.lastAccess }
        for entry in entries {
            let expires = entry.expiration == .distantFuture ? nil : CacheText.timestamp(entry.expiration)
            if json {
                try CacheText.printJSON(Line(
                    key: entry.key, file: entry.fileURL.lastPathComponent, bytes: entry.size,
                    lastAccess: CacheText.timestamp(entry.lastAccess), expires: expires))
            } else {
                let size = CacheText.padded(CacheText.bytes(UInt(max(0, entry.size))), to: 9)
                let expiry = (expires ?? "never").padding(toLength: 20, withPad: " ", startingAt: 0)
                print("\(size)  \(CacheText.timestamp(entry.lastAccess))  \(expiry)  \(entry.key ?? entry.fileURL.lastPathComponent)")
            }
        }
    }
}
