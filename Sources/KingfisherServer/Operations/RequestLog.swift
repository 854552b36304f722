import Hummingbird
import Logging

/// Writes the one log line of a request.
enum RequestLog {
    /// `200 GET /path 1234 B 5.2 ms cache=memory` at `info`, with the same fields as metadata;
    /// refusals add their reason and are logged at `notice` (5xx at `warning`).
    static func write(
        to logger: Logger, request: Request, status: Int, bytes: Int, nanoseconds: Int64, tier: CacheTier?, reason: String?
    ) {
        let level: Logger.Level = status >= 500 ? .warning : (status >= 400 ? .notice : .info)
        guard logger.logLevel <= level else { return }
        let milliseconds = Double(nanoseconds) / 1_000_000
        let path = request.uri.path.count > 200 ? request.uri.path.prefix(200) + "…" : request.uri.path
        let cache = tier?.rawValue ?? "-"
        var metadata: Logger.Metadata = [
            "status": "\(status)", "bytes": "\(bytes)", "ms": "\((milliseconds * 10).rounded() / 10)", "cache": "\(cache)",
        ]
        var line = "\(status) \(request.method) \(path) \(bytes) B \((milliseconds * 10).rounded() / 10) ms cache=\(cache)"
        if let reason {
            metadata["reason"] = "\(reason)"
            line += " reason=\(reason)"
        }
        logger.log(level: level, "\(line)", metadata: metadata)
    }
}
