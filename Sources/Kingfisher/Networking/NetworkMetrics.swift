import Foundation

/// How one download went on the network, measured by the downloader.
///
/// The downloader fills it in for every transfer that ends with a 2xx response; a failed transfer
/// has none. It is on ``ImageLoadingResult/metrics``, ``RetrieveImageResult/metrics`` (for an
/// image that came from the network) and ``SessionDataTask/metrics``.
///
/// Linux differences from Kingfisher: there is no `rawMetrics`. FoundationNetworking lets a
/// `URLSessionTaskMetrics` be created, but only empty (its transactions, interval and redirect
/// count can be neither set nor overridden outside Foundation), and the transfer does not run on
/// URLSession. ``domainLookupDuration``, ``connectDuration`` and ``secureConnectionDuration`` are
/// always `nil`: AsyncHTTPClient resolves, connects and handshakes inside its connection pool
/// without reporting when, and a pooled connection is reused without telling which (URLSession
/// reports `nil` for a reused connection too).
public struct NetworkMetrics: Sendable {
    /// Seconds from sending the request that got the image to the end of its body; `nil` when not
    /// measured.
    public let retrieveImageDuration: TimeInterval?

    /// Seconds the whole transfer took, redirects and an authentication retry included.
    public let totalRequestDuration: TimeInterval

    /// Seconds spent resolving the host name; `nil` on Linux (see the type's documentation).
    public let domainLookupDuration: TimeInterval?

    /// Seconds spent opening the connection; `nil` on Linux (see the type's documentation).
    public let connectDuration: TimeInterval?

    /// Seconds spent on the TLS handshake; `nil` on Linux (see the type's documentation).
    public let secureConnectionDuration: TimeInterval?

    /// Bytes of request body sent with the request that got the image (0 for a plain GET).
    public let requestBodyBytesSent: Int64

    /// Bytes of response body received for the image, as sent (before any decompression).
    public let responseBodyBytesReceived: Int64

    /// The status of the response that carried the image.
    public let httpStatusCode: Int?

    /// Redirects followed before the image's response.
    public let redirectCount: Int

    init(
        retrieveImageDuration: TimeInterval?, totalRequestDuration: TimeInterval,
        requestBodyBytesSent: Int64, responseBodyBytesReceived: Int64, httpStatusCode: Int?, redirectCount: Int
    ) {
        self.retrieveImageDuration = retrieveImageDuration
        self.totalRequestDuration = totalRequestDuration
        self.domainLookupDuration = nil
        self.connectDuration = nil
        self.secureConnectionDuration = nil
        self.requestBodyBytesSent = requestBodyBytesSent
        self.responseBodyBytesReceived = responseBodyBytesReceived
        self.httpStatusCode = httpStatusCode
        self.redirectCount = redirectCount
    }
}

extension NetworkMetrics {
    /// Body bytes per second over ``retrieveImageDuration``; `nil` when no byte came or the
    /// duration is unknown or zero.
    public var downloadSpeed: Double? {
        guard responseBodyBytesReceived > 0, let duration = retrieveImageDuration, duration > 0 else { return nil }
        return Double(responseBodyBytesReceived) / duration
    }

    /// ``downloadSpeed`` in mebibytes (1,048,576 bytes) per second.
    public var downloadSpeedMBps: Double? {
        downloadSpeed.map { $0 / (1024 * 1024) }
    }
}

/// Times one transfer for its ``NetworkMetrics``, with a monotonic clock.
struct TransferClock: Sendable {
    private let taskStart = ContinuousClock.now
    private var requestStart = ContinuousClock.now

    /// The request that may get the image is being sent now.
    mutating func requestSent() { requestStart = .now }

    /// The metrics of a transfer whose image response has just ended.
    func metrics(request: URLRequest, bytes: Int64, status: Int, redirects: Int) -> NetworkMetrics {
        let end = ContinuousClock.now
        return NetworkMetrics(
            retrieveImageDuration: Self.seconds(end - requestStart),
            totalRequestDuration: Self.seconds(end - taskStart),
            requestBodyBytesSent: Int64(request.httpBody?.count ?? 0),
            responseBodyBytesReceived: bytes, httpStatusCode: status, redirectCount: redirects)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
