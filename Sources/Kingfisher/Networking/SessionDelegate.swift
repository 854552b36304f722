import Foundation
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hooks an ``ImageDownloader`` calls at each stage of a transfer, in URLSession delegate
/// form: subclass it, override a hook (calling `super` keeps the downloader's own handling) and
/// set an instance as ``ImageDownloader/sessionDelegate``.
///
/// Linux differences from Kingfisher: the transfer runs on AsyncHTTPClient, not on URLSession, so
/// these are the downloader's own extension points, called at the moments URLSession would call
/// them, with stand-ins for URLSession's objects:
/// - `session` is a URLSession made with the downloader's ``ImageDownloader/sessionConfiguration``
///   that sends nothing itself;
/// - `task` / `dataTask` is the transfer's ``SessionDataTask/task``: its requests, response, byte
///   counts and state are the transfer's, and `cancel()` cancels the transfer;
/// - the `URLSessionTaskMetrics` of ``urlSession(_:task:didFinishCollecting:)`` is empty, the only
///   kind FoundationNetworking lets be made; the measured values are in the task's
///   ``SessionDataTask/metrics``, set before the hook runs.
///
/// Data arrive through the downloader (there is no `didReceive data` hook). One instance serves one
/// downloader. While no subclass is set, the downloader runs the default handling inline, without
/// making the Foundation objects.
///
/// `@unchecked Sendable` as in Kingfisher, for subclasses; this class's own state is behind `owner`'s lock.
open class SessionDelegate: NSObject, @unchecked Sendable {
    private struct WeakDownloader {
        weak var value: ImageDownloader?
    }

    private let owner = Mutex(WeakDownloader())

    /// Makes a delegate; the downloader it is set on calls it.
    override public init() {
        super.init()
    }

    /// The downloader this delegate was set on.
    var downloader: ImageDownloader? { owner.withLock { $0.value } }

    func attach(to downloader: ImageDownloader) {
        owner.withLock { $0.value = downloader }
    }

    /// The response head of the image request arrived (after redirects and authentication).
    ///
    /// The default fails the transfer (`.cancel`) when the status is not valid for the downloader
    /// (see ``ImageDownloaderDelegate/isValidStatusCode(_:for:)``), then asks the downloader's
    /// ``ImageDownloader/delegate``. Returning `.cancel` fails the download with
    /// `.invalidHTTPStatusCode` for an invalid status and `.cancelledByDelegate` otherwise; any
    /// other answer continues it.
    open func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse
    ) async -> URLSession.ResponseDisposition {
        guard let response = response as? HTTPURLResponse,
              let downloader = Self.downloader(of: dataTask) ?? downloader else { return .cancel }
        guard downloader.isValidStatusCode(response.statusCode) else { return .cancel }
        return await downloader.responseDisposition(for: response)
    }

    /// The transfer ended: `error` is `nil` when its body arrived whole. The default does nothing;
    /// the downloader delivers the result to its callers whatever this hook does.
    open func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}

    /// A challenge about the connection: whether to trust the server's TLS certificate, asked
    /// before each HTTPS request. The default asks the downloader's
    /// ``ImageDownloader/authenticationChallengeResponder`` (the downloader itself when none is set).
    open func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard let downloader else { return (.performDefaultHandling, nil) }
        return await (downloader.authenticationChallengeResponder ?? downloader).downloader(downloader, didReceive: challenge)
    }

    /// A challenge about one request: a 401 asking for Basic authentication. The default asks the
    /// downloader's ``ImageDownloader/authenticationChallengeResponder`` (the downloader itself when
    /// none is set).
    open func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard let downloader = Self.downloader(of: task) ?? downloader else { return (.performDefaultHandling, nil) }
        return await (downloader.authenticationChallengeResponder ?? downloader)
            .downloader(downloader, task: task, didReceive: challenge)
    }

    /// The server redirected the request to `request`. Return the request to follow, or `nil` to
    /// take `response` as the final one. The default asks the transfer's
    /// ``ImageDownloadRedirectHandler`` when the options set one.
    open func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest? {
        guard let sessionTask = (task as? TransferURLSessionTask)?.sessionTask,
              let handler = sessionTask.redirectHandler else { return request }
        return await handler.handleHTTPRedirection(for: sessionTask, response: response, newRequest: request)
    }

    /// The transfer's metrics are final. The default does nothing; the measured values are in the
    /// task's ``SessionDataTask/metrics`` (`metrics` itself is empty on Linux).
    open func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}

    private static func downloader(of task: URLSessionTask) -> ImageDownloader? {
        (task as? TransferURLSessionTask)?.sessionTask?.downloader
    }
}
