import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every error Kingfisher reports, grouped by the stage that failed.
///
/// The five categories and the reason codes that apply on Linux follow Kingfisher's
/// (1xxx request, 2xxx response, 3xxx cache, 4xxx processor, 5xxx image setting). Decoding,
/// encoding and limit failures are reasons of our own in the processor category (41xx), because a
/// decoder is the first processor every image meets. `errorDescription` is one sentence that names
/// what failed and for which format, key or URL.
public enum KingfisherError: Error, Sendable {
    /// Something is wrong with the request before it was sent.
    case requestError(reason: RequestErrorReason)
    /// The response was unusable.
    case responseError(reason: ResponseErrorReason)
    /// The memory or disk cache failed.
    case cacheError(reason: CacheErrorReason)
    /// Decoding, encoding or processing an image failed.
    case processorError(reason: ProcessorErrorReason)
    /// Setting an image to a view or a target failed.
    case imageSettingError(reason: ImageSettingErrorReason)

    /// Reasons of `.requestError`.
    public enum RequestErrorReason: Sendable {
        /// 1001: the request is empty: a request modifier returned `nil`.
        case emptyRequest
        /// 1002: the request has no usable URL (missing, empty, or not http/https).
        case invalidURL(request: URLRequest)
        /// 1003: the caller cancelled the download.
        ///
        /// `task` is the shared transfer the caller was attached to and `token` the caller's token
        /// in it, so `task.originalRequest?.url` names the download that was stopped (for the
        /// manager, the download of the source it was on: an alternative source's when it had moved
        /// on). A caller stopped before any transfer was attached (while it read the cache, waited
        /// for an async request modifier or for a retry delay) gets a transfer that never started,
        /// made for the URL it asked for, with token 0.
        case taskCancelled(task: SessionDataTask, token: SessionDataTask.CancelToken)
        /// 1005: the Swift task was cancelled before the work started.
        case asyncTaskContextCancelled
        /// 1006: the caller cancelled while an ``ImageDataProvider`` was supplying its bytes.
        case dataProviderCancelled(provider: any ImageDataProvider)
    }

    /// Reasons of `.responseError`.
    public enum ResponseErrorReason: Sendable {
        /// 2001: the response is not an HTTP response that can be read.
        case invalidURLResponse(response: URLResponse)
        /// 2002: the HTTP status code is not valid for the downloader's delegate (default 200..<400).
        case invalidHTTPStatusCode(response: HTTPURLResponse)
        /// 2003: the transport failed; the underlying error (usually AsyncHTTPClient's) is kept.
        case URLSessionError(error: any Error)
        /// 2004: the downloader delegate rejected the downloaded data (returned `nil`).
        case dataModifyingFailed(task: SessionDataTask)
        /// 2005: the transfer ended without a response.
        case noURLResponse(task: SessionDataTask)
        /// 2006: the downloader delegate cancelled the download when the response arrived.
        case cancelledByDelegate(response: URLResponse)
        /// 2101 (ours): the response is larger than the downloader's maximum response size.
        ///
        /// `declaredSize` is the `Content-Length` when that alone was over the limit (nothing of
        /// the body was read); otherwise `nil`, and `receivedSize` is how many bytes had arrived
        /// when the limit was crossed. The partial body is freed.
        case responseTooLarge(url: URL, limit: Int64, declaredSize: Int64?, receivedSize: Int64)
        /// 2102 (ours): no byte arrived from the server for `timeout` seconds.
        case downloadTimedOut(url: URL, timeout: TimeInterval)
        /// 2103 (ours): the connection ended before the `Content-Length` bytes of the body arrived.
        case responseIncomplete(url: URL, expected: Int64, received: Int64)
        /// 2104 (ours): the server redirected more times than the downloader allows, or in a loop.
        case tooManyRedirects(url: URL, limit: Int)
        /// 2105 (ours): a conditional request (a revalidation) was answered `304 Not Modified`;
        /// `validators` are those the `304` carried.
        case notModified(url: URL, validators: ResponseValidators)
    }

    /// Reasons of `.cacheError`.
    public enum CacheErrorReason: Sendable {
        /// 3003: the cache folder or one of its files could not be listed or inspected.
        case invalidURLResource(error: any Error, key: String, url: URL)
        /// 3004: a cached file could not be read.
        case cannotLoadDataFromDisk(url: URL, error: any Error)
        /// 3005: the cache folder could not be created.
        case cannotCreateDirectory(path: String, error: any Error)
        /// 3006: `onlyFromCache` was asked and the image is not cached.
        case imageNotExisting(key: String)
        /// 3007: a value for the disk storage could not be turned into bytes.
        case cannotConvertToData(object: any Sendable, error: any Error)
        /// 3008: the serializer produced no bytes for the image (and there was no original data).
        case cannotSerializeImage(image: KFCrossPlatformImage?, original: Data?, serializer: any CacheSerializer)
        /// 3009: the cache file for `key` could not be written.
        case cannotCreateCacheFile(fileURL: URL, key: String, data: Data, error: any Error)
        /// 3011: the disk storage failed to set up and cannot be used.
        case diskStorageIsNotReady(cacheURL: URL)
        /// 3101 (ours): the disk storage's index in the cache folder could not be read or written.
        case cacheIndexFailed(path: String, error: any Error)
        /// 3001: the cache folder at `url` could not be opened for listing (a removal of every
        /// entry or a sweep of expired ones needs its list).
        case fileEnumeratorCreationFailed(url: URL)
        /// 3002: the listing of the cache folder at `url` failed part way through.
        case invalidFileEnumeratorContent(url: URL)
        /// 3010: a new cache file's modification date (set to the time it is stored, so tools
        /// that age files by it see recent use) could not be set; the file was not kept.
        case cannotSetCacheFileAttribute(filePath: String, attributes: [FileAttributeKey: any Sendable], error: any Error)
    }

    /// Reasons of `.processorError`, including the decoding and encoding reasons of our own.
    public enum ProcessorErrorReason: Sendable {
        /// 4001: `processor` returned no image for `item`.
        case processingFailed(processor: any ImageProcessor, item: ImageProcessItem)
        /// 4101: there were no bytes to decode.
        case emptyImageData
        /// 4102: the bytes are in no format we decode; `header` holds the first few of them.
        case unknownImageFormat(header: Data)
        /// 4103: the data claims `format` but is corrupt, truncated or uses a feature we do not decode.
        case decodingFailed(format: ImageFormat, description: String)
        /// 4104: the image is larger than a configured limit; nothing was allocated for its pixels.
        case imageLimitExceeded(format: ImageFormat, violation: ImageLimitViolation)
        /// 4105: encoding to `format` failed.
        case encodingFailed(format: ImageFormat, description: String)
    }

    /// Reasons of `.imageSettingError`.
    public enum ImageSettingErrorReason: Sendable {
        /// 5001: the source to set is `nil`.
        case emptySource
        /// 5002: the image target moved on to another source before this one finished.
        ///
        /// The target was not touched. `result` holds what the superseded request produced when it
        /// succeeded, `error` why it failed otherwise; `source` is the superseded source.
        case notCurrentSourceTask(result: RetrieveImageResult?, error: (any Error)?, source: Source)
        /// 5003: an ``ImageDataProvider`` failed to supply its bytes.
        case dataProviderError(provider: any ImageDataProvider, error: any Error)
        /// 5004: the source and every `alternativeSources` entry failed; each failure in the
        /// order tried.
        case alternativeSourcesExhausted([PropagationError])
    }

    /// Kingfisher's name for it inside ``KingfisherError``: the same type as the top-level
    /// ``Kingfisher/PropagationError``.
    public typealias PropagationError = Kingfisher.PropagationError

    /// The error domain of every Kingfisher error, as `NSError` shows it (``errorDomain``).
    public static let domain = "com.onevcat.Kingfisher.Error"
}

/// One failed source among those tried for a retrieval, as
/// `.imageSettingError(.alternativeSourcesExhausted)` lists them.
public struct PropagationError: Sendable {
    /// The source tried.
    public let source: Source
    /// Why it failed.
    public let error: KingfisherError

    /// A failure of `source` with `error`.
    public init(source: Source, error: KingfisherError) {
        self.source = source
        self.error = error
    }
}

/// Which decoding limit an image broke, with its figure and the limit.
public enum ImageLimitViolation: Sendable, Hashable, CustomStringConvertible {
    /// One frame has more pixels than allowed.
    case pixelsPerFrame(width: Int, height: Int, limit: Int)
    /// The animation has more frames than allowed.
    case frameCount(count: Int, limit: Int)
    /// All frames together have more pixels than allowed.
    case totalAnimationPixels(pixels: Int, limit: Int)

    /// The violation in words, with its figure and the limit.
    public var description: String {
        switch self {
        case let .pixelsPerFrame(width, height, limit):
            return "\(width)×\(height) is \(width.multipliedReportingOverflow(by: height).partialValue) pixels per frame, over the limit of \(limit)"
        case let .frameCount(count, limit):
            return "\(count) frames is over the limit of \(limit)"
        case let .totalAnimationPixels(pixels, limit):
            return "the animation needs at least \(pixels) pixels in all, over the limit of \(limit)"
        }
    }
}

extension KingfisherError {
    /// Whether this is a revalidation answered `304 Not Modified`.
    public var isNotModified: Bool {
        if case .responseError(reason: .notModified) = self { return true }
        return false
    }

    /// True when the work stopped because a caller cancelled it: `.requestError(.taskCancelled)`
    /// and `.requestError(.asyncTaskContextCancelled)`.
    public var isTaskCancelled: Bool {
        switch self {
        case .requestError(reason: .taskCancelled), .requestError(reason: .asyncTaskContextCancelled),
             .requestError(reason: .dataProviderCancelled):
            return true
        default:
            return false
        }
    }

    /// True for `.responseError(.invalidHTTPStatusCode)`.
    public var isInvalidResponseStatusCode: Bool {
        if case .responseError(reason: .invalidHTTPStatusCode) = self { return true }
        return false
    }

    /// True for `.responseError(.invalidHTTPStatusCode)` carrying the status `code`.
    public func isInvalidResponseStatusCode(_ code: Int) -> Bool {
        if case .responseError(reason: .invalidHTTPStatusCode(let response)) = self {
            return response.statusCode == code
        }
        return false
    }

    /// True for `.imageSettingError(.notCurrentSourceTask)`: the target had moved on to another
    /// source, so this result or error was not applied to it.
    public var isNotCurrentTask: Bool {
        if case .imageSettingError(reason: .notCurrentSourceTask) = self { return true }
        return false
    }

    /// The numeric code of the reason, Kingfisher's where it has one.
    public var errorCode: Int {
        switch self {
        case .requestError(let reason): return reason.errorCode
        case .responseError(let reason): return reason.errorCode
        case .cacheError(let reason): return reason.errorCode
        case .processorError(let reason): return reason.errorCode
        case .imageSettingError(let reason): return reason.errorCode
        }
    }
}

extension KingfisherError.RequestErrorReason {
    var errorCode: Int {
        switch self {
        case .emptyRequest: return 1001
        case .invalidURL: return 1002
        case .taskCancelled: return 1003
        case .asyncTaskContextCancelled: return 1005
        case .dataProviderCancelled: return 1006
        }
    }
}

extension KingfisherError.ResponseErrorReason {
    var errorCode: Int {
        switch self {
        case .invalidURLResponse: return 2001
        case .invalidHTTPStatusCode: return 2002
        case .URLSessionError: return 2003
        case .dataModifyingFailed: return 2004
        case .noURLResponse: return 2005
        case .cancelledByDelegate: return 2006
        case .responseTooLarge: return 2101
        case .downloadTimedOut: return 2102
        case .responseIncomplete: return 2103
        case .tooManyRedirects: return 2104
        case .notModified: return 2105
        }
    }
}

extension KingfisherError.CacheErrorReason {
    var errorCode: Int {
        switch self {
        case .invalidURLResource: return 3003
        case .cannotLoadDataFromDisk: return 3004
        case .cannotCreateDirectory: return 3005
        case .imageNotExisting: return 3006
        case .cannotConvertToData: return 3007
        case .cannotSerializeImage: return 3008
        case .cannotCreateCacheFile: return 3009
        case .diskStorageIsNotReady: return 3011
        case .cacheIndexFailed: return 3101
        case .fileEnumeratorCreationFailed: return 3001
        case .invalidFileEnumeratorContent: return 3002
        case .cannotSetCacheFileAttribute: return 3010
        }
    }
}

extension KingfisherError.ProcessorErrorReason {
    var errorCode: Int {
        switch self {
        case .processingFailed: return 4001
        case .emptyImageData: return 4101
        case .unknownImageFormat: return 4102
        case .decodingFailed: return 4103
        case .imageLimitExceeded: return 4104
        case .encodingFailed: return 4105
        }
    }
}

extension KingfisherError.ImageSettingErrorReason {
    var errorCode: Int {
        switch self {
        case .emptySource: return 5001
        case .notCurrentSourceTask: return 5002
        case .dataProviderError: return 5003
        case .alternativeSourcesExhausted: return 5004
        }
    }
}
