import HTTPTypes
import Logging

/// Writes the one log line of a request.
enum RequestLog {
    /// `GET /path` at `info` with `status`, `bytes`, `ms`, `cache`, `client` (when known) and
    /// `grammar` (`native`, `thumbor` or `imgproxy`, for image requests) as metadata, beside the logger's own (`instance`); refusals add their `reason` and are logged
    /// at `notice` (5xx at `warning`) unless `level` says otherwise.
    static func write(
        to logger: Logger, method: HTTPRequest.Method, path: String, status: Int, bytes: Int, nanoseconds: Int64, tier: CacheTier?, reason: String?,
        client: String?, grammar: String? = nil, level: Logger.Level? = nil
    ) {
        let level: Logger.Level = level ?? (status >= 500 ? .warning : (status >= 400 ? .notice : .info))
        guard logger.logLevel <= level else { return }
        let milliseconds = Double(nanoseconds) / 1_000_000
        let path = path.count > 200 ? path.prefix(200) + "…" : path
        let cache = tier?.rawValue ?? "-"
        var metadata: Logger.Metadata = [
            "status": "\(status)", "bytes": "\(bytes)", "ms": "\((milliseconds * 10).rounded() / 10)", "cache": "\(cache)",
        ]
        if let reason { metadata["reason"] = "\(reason)" }
        if let client { metadata["client"] = "\(client)" }
        if let grammar { metadata["grammar"] = "\(grammar)" }
        logger.log(level: level, "\(method) \(path)", metadata: metadata)
    }
}
