import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides what happens when the server answers a download with a redirect (301, 302, 303, 307, 308).
///
/// `newRequest` is the request the downloader would send next (the `Location` resolved against
/// the current URL; the method becomes `GET` for 301/302/303 as browsers do). Return it, a changed
/// copy (to add a header, say), or `nil` to stop following: the redirect response itself is then
/// the final response, validated and decoded like any other (its body is rarely an image). The
/// downloader follows at most ``ImageDownloader/maximumRedirects`` redirects, and fails with
/// `.responseError(.tooManyRedirects)` beyond that or on a loop.
public protocol ImageDownloadRedirectHandler: Sendable {
    /// Returns the request to follow the redirect with, or `nil` to stop at `response`.
    func handleHTTPRedirection(
        for task: SessionDataTask,
        response: HTTPURLResponse,
        newRequest: URLRequest
    ) async -> URLRequest?
}

/// A redirect handler made from a closure that reports its decision through a completion handler.
public struct AnyRedirectHandler: ImageDownloadRedirectHandler {
    private let block: @Sendable (SessionDataTask, HTTPURLResponse, URLRequest, @escaping @Sendable (URLRequest?) -> Void) -> Void

    /// Wraps `handle`, which must call its last argument exactly once with the request or `nil`.
    public init(
        handle: @escaping @Sendable (SessionDataTask, HTTPURLResponse, URLRequest, @escaping @Sendable (URLRequest?) -> Void) -> Void
    ) {
        block = handle
    }

    /// Runs the closure and waits for its decision.
    public func handleHTTPRedirection(
        for task: SessionDataTask,
        response: HTTPURLResponse,
        newRequest: URLRequest
    ) async -> URLRequest? {
        await withCheckedContinuation { continuation in
            // A second call of the completion handler is ignored instead of crashing.
            let pending = LockedBox<CheckedContinuation<URLRequest?, Never>?>(continuation)
            block(task, response, newRequest) { request in
                pending.withLock { value in
                    value.take()
                }?.resume(returning: request)
            }
        }
    }
}
