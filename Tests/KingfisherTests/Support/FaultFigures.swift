import Foundation
import Testing

/// What the fault tests (issue 19, parts 3 and 4) measure about this process: resident memory and
/// open file descriptors, read from `/proc/self`, and one line of figures per fault for
/// `scripts/faults.sh` to collect.
enum FaultFigures {
    /// The resident set now, in bytes (`VmRSS`); 0 where `/proc` is missing.
    static var residentBytes: Int { statusField("VmRSS") }

    /// The peak resident set of the process so far, in bytes (`VmHWM`); 0 where `/proc` is missing.
    static var peakResidentBytes: Int { statusField("VmHWM") }

    /// The number of open file descriptors (entries of `/proc/self/fd`); -1 where it cannot be read.
    static var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Prints `faults: <name> key=value ...`, the line `scripts/faults.sh` collects.
    static func report(_ name: String, _ figures: KeyValuePairs<String, String>) {
        let fields = figures.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print("faults: \(name) \(fields) peak_rss_mb=\(megabytes(peakResidentBytes))")
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1_048_576)
    }

    private static func statusField(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return (number.flatMap { Int($0) } ?? 0) * 1024
        }
        return 0
    }
}

/// The seconds `body` takes, by the monotonic clock.
func secondsTaken(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
