import ArgumentParser
import Foundation
import Kingfisher

/// `kf cache clean`: remove expired entries, orphans and stale temporary files, then trim.
struct CacheCleanCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove expired entries and leftovers of interrupted writes; with --size-limit, trim to it.",
        discussion: """
        Trimming removes the least recently used entries until the cache holds at most half the \
        limit, as the library does when a write takes it over its limit. The text report is left \
        out with --quiet (the JSON one is not).

        Exit status: 0 on success, 1 when --cache-dir does not exist or the cache folder cannot be \
        read or changed, 2 on a usage error.
        """
    )

    @OptionGroup var location: CacheLocationOptions

    @OptionGroup var outputOptions: OutputOptions

    @Option(name: .customLong("size-limit"), help: ArgumentHelp(
        "Trim to this size: bytes, or a number with K, M or G (powers of 1024).", valueName: "SIZE"))
    var sizeLimit: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        var removed: Int
        var entries: Int
        var bytes: UInt
    }

    func run() throws {
        let limit = try sizeLimit.map(CacheText.parseSize)
        let storage = try location.openStorage(output: outputOptions)
        let (removed, entries) = try about(location.label) {
            var removed = try storage.removeExpiredValues().count
            if let limit {
                storage.config.sizeLimit = limit
                removed += try storage.removeSizeExceededValues().count
            }
            return (removed, try storage.entries())
        }
        let report = Report(removed: removed, entries: entries.count,
                            bytes: CacheText.totalBytes(entries))
        if json {
            try CacheText.printJSON(report)
        } else {
            if !outputOptions.quiet {
                print("removed \(report.removed) files; \(report.entries) entries, \(CacheText.bytes(report.bytes)) remain")
            }
        }
    }
}

/// `kf cache clear`: remove every entry, once confirmed.
struct CacheClearCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove every cached entry (the folder stays), after asking on a terminal.",
        discussion: """
        On a terminal, clear says what it would remove and asks first; --yes skips the question. \
        Without a terminal on standard input (a script, a pipe) nothing is removed unless --yes \
        is given. The text report is left out with --quiet (the JSON one is not).

        Exit status: 0 on success, 1 when the clearing was not confirmed, --cache-dir does not \
        exist or the cache folder cannot be read or changed, 2 on a usage error (no --yes \
        without a terminal).
        """
    )

    @OptionGroup var location: CacheLocationOptions

    @OptionGroup var outputOptions: OutputOptions

    @Flag(name: [.customShort("y"), .long], help: "Remove without asking (needed when standard input is not a terminal).")
    var yes = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        var removed: Int
        var bytes: UInt
    }

    func run() throws {
        let interactive = isatty(STDIN_FILENO) == 1
        guard yes || interactive else {
            throw CLIError.usage("standard input is not a terminal to confirm on; pass --yes to clear the cache without asking")
        }
        let storage = try location.openStorage(output: outputOptions)
        if !yes {
            let present = try about(location.label) { try storage.entries() }
            if !present.isEmpty {
                let what = present.count == 1 ? "the 1 entry" : "all \(present.count) entries"
                let question = "kf: remove \(what) (\(CacheText.bytes(CacheText.totalBytes(present)))) "
                    + "from \(storage.directoryURL.path)? [y/N] "
                FileHandle.standardError.write(Data(question.utf8))
                guard Self.confirmed(readLine(strippingNewline: true)) else {
                    throw CLIError.failure("nothing was removed")
                }
            }
        }
        let entries = try about(location.label) {
            let entries = try storage.entries()
            try storage.removeAll()
            return entries
        }
        let report = Report(removed: entries.count, bytes: CacheText.totalBytes(entries))
        if json {
            try CacheText.printJSON(report)
        } else {
            if !outputOptions.quiet {
                print("removed \(report.removed) entries, \(CacheText.bytes(report.bytes))")
            }
        }
    }

    /// Whether an answer to the question is yes: `y` or `yes` in any case; end of input is no.
    static func confirmed(_ answer: String?) -> Bool {
        guard let answer = answer?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return answer == "y" || answer == "yes"
    }
}

/// `kf cache path [KEY]`: the cache folder, or the file that holds a key.
struct CachePathCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the cache folder, or with KEY the file that holds (or would hold) it.",
        discussion: """
        The key of a downloaded image is its URL; with --processor the key is KEY@identifier.

        Exit status: 0 on success, 1 when --cache-dir does not exist, 2 on a usage error.
        """
    )

    @OptionGroup var location: CacheLocationOptions

    @OptionGroup var outputOptions: OutputOptions

    @Argument(help: "A cache key, usually an image URL.")
    var key: String?

    @Option(help: ArgumentHelp("The processor chain the image was cached with, e.g. 'downsample(64x64)'.", valueName: "SPEC"))
    var processor: String?

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    struct Report: Encodable {
        var path: String
        var key: String?
        var cached: Bool?
    }

    func run() throws {
        var identifier = ""
        if let processor {
            do {
                identifier = try ProcessorSpec(parsing: processor).processor().identifier
            } catch {
                throw CLIError.usage("bad --processor: \(error)")
            }
        }
        let cache = try location.openExistingCache(output: outputOptions)
        var report = Report(path: cache.diskStorage.directoryURL.path)
        if let key {
            report.path = cache.cachePath(forKey: key, processorIdentifier: identifier)
            report.key = key.isEmpty || identifier.isEmpty ? key : "\(key)@\(identifier)"
            report.cached = cache.diskStorage.isCached(forKey: report.key ?? key)
        }
        if json {
            try CacheText.printJSON(report)
        } else {
            print(report.path)
        }
    }
}

/// How `kf cache` writes sizes, dates and JSON.
enum CacheText {
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    static func totalBytes(_ entries: [DiskStorage.Entry]) -> UInt {
        entries.reduce(0) { $0 + UInt(max(0, $1.size)) }
    }

    static func bytes(_ count: UInt) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func expiration(_ expiration: StorageExpiration) -> String {
        switch expiration {
        case .never: return "never"
        case .seconds(let seconds): return "\(seconds) s after last access"
        case .days(let days): return "\(days) days after last access"
        case .date(let date): return "at \(timestamp(date))"
        case .expired: return "immediately"
        }
    }

    /// Parses `123`, `64K`, `500M`, `2G` (powers of 1024).
    static func parseSize(_ text: String) throws -> UInt {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let multipliers: [Character: UInt] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = trimmed
        var multiplier: UInt = 1
        if let last = trimmed.last, let factor = multipliers[last] {
            multiplier = factor
            digits = String(trimmed.dropLast())
        }
        guard let number = UInt(digits), case let (product, overflow) = number.multipliedReportingOverflow(by: multiplier), !overflow else {
            throw CLIError.usage("bad size '\(text)': give bytes, or a number with K, M or G")
        }
        return product
    }
}
