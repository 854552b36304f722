import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Changes a download request before it is sent, possibly waiting on other work (a token refresh).
///
/// The downloader builds a `GET` request for the URL and passes it here; the request returned is
/// the one sent, and the one requests are shared by: two callers share a transfer only when their
/// modified requests have the same URL, method and headers. Returning `nil` fails the download
/// with `.requestError(.emptyRequest)`; a request without an http or https URL fails it with
/// `.requestError(.invalidURL)`. Only the URL, method, headers and body of the request are used;
/// the timeout is the downloader's ``ImageDownloader/downloadTimeout``.
public protocol AsyncImageDownloadRequestModifier: Sendable {
    /// Returns the request to send instead of `request`, or `nil` to stop the download.
    func modified(for request: URLRequest) async -> URLRequest?

    /// Called with the caller's ``DownloadTask`` once the request is on its way; `nil` by default.
    var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? { get }
}

/// A request modifier that answers at once, without suspending.
///
/// The downloader calls the synchronous ``modified(for:)`` on the calling thread, so the
/// ``DownloadTask`` returned by `downloadImage` is already attached to its transfer.
public protocol ImageDownloadRequestModifier: AsyncImageDownloadRequestModifier {
    /// Returns the request to send instead of `request`, or `nil` to stop the download.
    func modified(for request: URLRequest) -> URLRequest?
}

extension ImageDownloadRequestModifier {
    /// Forwards to the synchronous ``modified(for:)``.
    public func modified(for request: URLRequest) async -> URLRequest? {
        // The function type picks the synchronous overload.
        let modify: (URLRequest) -> URLRequest? = modified(for:)
        return modify(request)
    }
}

extension AsyncImageDownloadRequestModifier {
    /// No notification by default.
    public var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? { nil }
}

/// A synchronous request modifier made from a closure.
public struct AnyModifier: ImageDownloadRequestModifier {
    private let block: @Sendable (URLRequest) -> URLRequest?

    /// Wraps `modify`, which returns the request to send or `nil` to stop the download.
    public init(modify: @escaping @Sendable (URLRequest) -> URLRequest?) {
        block = modify
    }

    /// Runs the closure.
    public func modified(for request: URLRequest) -> URLRequest? {
        block(request)
    }
}
