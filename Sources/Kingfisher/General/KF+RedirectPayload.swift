import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension KF {
    /// A redirect as the closure form of ``KFOptionSetter/redirectHandler(_:)-(@Sendable(KF.RedirectPayload)->Void)``
    /// sees it: the transfer, the redirect response, the request the downloader would send next,
    /// and the handler to call with the request to follow.
    public struct RedirectPayload: Sendable {
        /// The transfer being redirected.
        public let task: SessionDataTask

        /// The redirect response (301, 302, 303, 307 or 308).
        public let response: HTTPURLResponse

        /// The request the downloader would send next; pass it, a changed copy or `nil` to
        /// ``completionHandler``.
        public let newRequest: URLRequest

        /// Call it exactly once with the request to follow, or `nil` to take ``response`` as the
        /// final response; later calls are ignored. The transfer waits until it is called.
        public let completionHandler: @Sendable (URLRequest?) -> Void
    }
}

extension KFOptionSetter {
    /// `.redirectHandler` from a closure that receives each redirect and answers through the
    /// payload's `completionHandler`.
    public func redirectHandler(_ block: @escaping @Sendable (KF.RedirectPayload) -> Void) -> Self {
        let handler = AnyRedirectHandler { task, response, request, completion in
            block(KF.RedirectPayload(task: task, response: response, newRequest: request, completionHandler: completion))
        }
        return redirectHandler(handler)
    }
}
