import ArgumentParser
import Foundation

/// `--quiet` and `--verbose`, shared by every subcommand.
///
/// Quiet leaves only errors on standard error and only the asked-for answer on standard output
/// (fetch's and prefetch's text lines and cache clean's and clear's reports are dropped; JSON and
/// the output of `info`, `cache info`, `cache ls` and `cache path` stay). Verbose adds lines on
/// standard error, each starting with `kf: `.
struct OutputOptions: ParsableArguments {
    /// Errors only: no progress, no summary, no per-image text lines.
    @Flag(name: .shortAndLong, help: "Print only errors and the asked-for answer: no progress, summaries or per-image text lines.")
    var quiet = false

    /// Extra `kf: ` lines on standard error, and errors in full.
    @Flag(name: .shortAndLong, help: "Also print the cache folder, where each image came from and timings, and full errors.")
    var verbose = false

    /// Rejects `--quiet` with `--verbose`.
    func validate() throws {
        if quiet && verbose {
            throw ValidationError("--quiet and --verbose exclude each other")
        }
    }

    /// Prints `kf: message` on standard error when verbose.
    func note(_ message: @autoclosure () -> String) {
        guard verbose else { return }
        printError("kf: " + message())
    }

    /// Whether progress may be drawn.
    var showsProgress: Bool { !quiet }
}

/// A command that takes ``OutputOptions``, so `kf`'s error handler knows whether to be verbose.
protocol HasOutputOptions {
    /// The command's `--quiet` and `--verbose`.
    var outputOptions: OutputOptions { get }
}

/// A duration as people read it: `0.4 ms`, `12 ms`, `1.52 s`.
func milliseconds(_ duration: Duration) -> String {
    let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    if ms < 10 { return String(format: "%.1f ms", ms) }
    if ms < 10_000 { return String(format: "%.0f ms", ms) }
    return String(format: "%.2f s", ms / 1000)
}

/// Runs `body` and returns its value with the time it took.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
    let start = ContinuousClock.now
    let value = try body()
    return (value, ContinuousClock.now - start)
}
