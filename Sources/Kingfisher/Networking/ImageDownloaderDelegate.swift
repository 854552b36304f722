import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Told about the stages of an ``ImageDownloader``'s downloads, and able to steer some of them.
///
/// Every method has a default. Methods are called on the downloader's own threads (never the main
/// queue), once per network transfer, which several callers may share. The downloader holds its
/// delegate weakly, as Kingfisher does: keep a strong reference elsewhere.
public protocol ImageDownloaderDelegate: AnyObject, Sendable {
    /// The transfer for `url` is about to be sent with `request`.
    func imageDownloader(_ downloader: ImageDownloader, willDownloadImageForURL url: URL, with request: URLRequest?)

    /// The transfer for `url` ended, with its response or its error; called exactly once per
    /// transfer, also when it failed, was cancelled, or its data was refused by
    /// ``imageDownloader(_:didDownload:with:)`` (then `error` is `.responseError(.dataModifyingFailed)`).
    func imageDownloader(
        _ downloader: ImageDownloader,
        didFinishDownloadingImageForURL url: URL,
        with response: URLResponse?,
        error: (any Error)?
    )

    /// The body of `dataTask` arrived: return the data to process, a replacement, or `nil` to
    /// fail its callers with `.responseError(.dataModifyingFailed)`.
    ///
    /// Called before ``imageDownloader(_:didFinishDownloadingImageForURL:with:error:)``, which
    /// then carries that error. The default asks ``imageDownloader(_:didDownload:for:)``.
    func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, with dataTask: SessionDataTask) -> Data?

    /// The body downloaded from `url` arrived: the same decision as the `dataTask` form, for a
    /// delegate that needs only the URL. Default: the data as it is.
    func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, for url: URL) -> Data?

    /// A processor made `image` from the data of `url`; called once per distinct processor.
    func imageDownloader(
        _ downloader: ImageDownloader,
        didDownload image: KFCrossPlatformImage,
        for url: URL,
        with response: URLResponse?
    )

    /// Whether `code` is a success; others fail with `.responseError(.invalidHTTPStatusCode)`.
    /// Default `200..<400`.
    func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool

    /// The response headers arrived (status already valid): `.allow` reads the body, `.cancel`
    /// fails the callers with `.responseError(.cancelledByDelegate)`. Other dispositions count
    /// as `.allow`.
    func imageDownloader(_ downloader: ImageDownloader, didReceive response: URLResponse) async -> URLSession.ResponseDisposition
}

extension ImageDownloaderDelegate {
    /// Does nothing.
    public func imageDownloader(_ downloader: ImageDownloader, willDownloadImageForURL url: URL, with request: URLRequest?) {}

    /// Does nothing.
    public func imageDownloader(
        _ downloader: ImageDownloader,
        didFinishDownloadingImageForURL url: URL,
        with response: URLResponse?,
        error: (any Error)?
    ) {}

    /// Asks the URL form, ``imageDownloader(_:didDownload:for:)``, with the task's original URL.
    public func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, with dataTask: SessionDataTask) -> Data? {
        imageDownloader(downloader, didDownload: data, for: dataTask.originalURL)
    }

    /// Keeps the data as it is.
    public func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, for url: URL) -> Data? {
        data
    }

    /// Does nothing.
    public func imageDownloader(
        _ downloader: ImageDownloader,
        didDownload image: KFCrossPlatformImage,
        for url: URL,
        with response: URLResponse?
    ) {}

    /// `200..<400`.
    public func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool {
        (200..<400).contains(code)
    }

    /// Allows every response.
    public func imageDownloader(_ downloader: ImageDownloader, didReceive response: URLResponse) async -> URLSession.ResponseDisposition {
        .allow
    }
}

// The calls the transfer makes, with the defaults when no delegate is set.
extension ImageDownloader {
    func reportWillDownload(url: URL, request: URLRequest) {
        delegate?.imageDownloader(self, willDownloadImageForURL: url, with: request)
    }

    func reportDidFinishDownloading(url: URL, response: ResponseHead?, error: KingfisherError?) {
        delegate?.imageDownloader(self, didFinishDownloadingImageForURL: url, with: response?.urlResponse, error: error)
    }

    func reportDidDownload(data: Data, task: SessionDataTask) -> Data? {
        guard let delegate else { return data }
        return delegate.imageDownloader(self, didDownload: data, with: task)
    }

    func reportDidDownload(image: KFCrossPlatformImage, url: URL, response: ResponseHead) {
        delegate?.imageDownloader(self, didDownload: image, for: url, with: response.urlResponse)
    }

    func isValidStatusCode(_ code: Int) -> Bool {
        guard let delegate else { return (200..<400).contains(code) }
        return delegate.isValidStatusCode(code, for: self)
    }

    func responseDisposition(for response: HTTPURLResponse) async -> URLSession.ResponseDisposition {
        guard let delegate else { return .allow }
        let disposition = await delegate.imageDownloader(self, didReceive: response)
        return disposition == .cancel ? .cancel : .allow
    }
}
