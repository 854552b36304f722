import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension KingfisherError: LocalizedError, CustomStringConvertible {
    /// One sentence saying what failed.
    public var errorDescription: String? {
        switch self {
        case .requestError(let reason): return reason.message
        case .responseError(let reason): return reason.message
        case .cacheError(let reason): return reason.message
        case .processorError(let reason): return reason.message
        case .imageSettingError(let reason): return reason.message
        }
    }

    /// The description with the error code, as logs want it.
    public var description: String {
        "KingfisherError \(errorCode): \(errorDescription ?? "unknown failure")"
    }
}

extension KingfisherError: CustomNSError {
    /// Kingfisher's error domain, ``KingfisherError/domain``.
    public static var errorDomain: String { domain }

    /// Carries the description, so `localizedDescription` reads the same through `NSError`.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: errorDescription ?? "unknown failure"]
    }
}

extension KingfisherError.RequestErrorReason {
    var message: String {
        switch self {
        case .emptyRequest:
            return "The request is empty: the request modifier returned nil."
        case .invalidURL(let request):
            return "The request has no usable http or https URL: \(request.url?.absoluteString ?? "nil")."
        case let .taskCancelled(task, _):
            return "The download of \(task.originalURL.absoluteString) was cancelled."
        case .asyncTaskContextCancelled:
            return "The task was cancelled before the work started."
        case .dataProviderCancelled(let provider):
            return "Reading the data provider for \(provider.contentURL?.absoluteString ?? provider.cacheKey) was cancelled."
        }
    }
}

extension KingfisherError.ResponseErrorReason {
    var message: String {
        switch self {
        case .invalidURLResponse(let response):
            return "The response from \(response.url?.absoluteString ?? "an unknown URL") is not a readable HTTP response."
        case .invalidHTTPStatusCode(let response):
            return "The server answered \(response.url?.absoluteString ?? "an unknown URL") with the invalid status \(response.statusCode)."
        case .URLSessionError(let error):
            // A connection failure in plain words (never NIO's errno text or BoringSSL's file paths).
            if let failure = NetworkFailure(error) {
                let line = failure.description
                return line.prefix(1).uppercased() + line.dropFirst() + "."
            }
            // A URLError the downloader made itself carries its sentence (a refused TLS challenge).
            if let error = error as? URLError, let sentence = error.userInfo[NSLocalizedDescriptionKey] as? String {
                return "The transfer failed: \(sentence)."
            }
            return "The transfer failed: \(error)."
        case .dataModifyingFailed(let task):
            return "The downloader delegate rejected the data downloaded from \(task.originalURL.absoluteString)."
        case .noURLResponse(let task):
            return "The transfer of \(task.originalURL.absoluteString) ended without a response."
        case .cancelledByDelegate(let response):
            return "The downloader delegate cancelled the download of \(response.url?.absoluteString ?? "an unknown URL") on its response."
        case let .responseTooLarge(url, limit, declaredSize, receivedSize):
            if let declaredSize {
                return "The response from \(url.absoluteString) declares \(declaredSize) bytes, over the limit of \(limit) bytes."
            }
            return "The response from \(url.absoluteString) passed the limit of \(limit) bytes (\(receivedSize) bytes received)."
        case let .downloadTimedOut(url, timeout):
            return "The download of \(url.absoluteString) timed out: nothing arrived for \(timeout) seconds."
        case let .responseIncomplete(url, expected, received):
            return "The response from \(url.absoluteString) ended after \(received) of its \(expected) bytes."
        case let .tooManyRedirects(url, limit):
            return "The download of \(url.absoluteString) was redirected more than \(limit) times or in a loop."
        case .notModified(let url, _):
            return "The server answered the revalidation of \(url.absoluteString) with 304 Not Modified."
        }
    }
}

extension KingfisherError.CacheErrorReason {
    var message: String {
        switch self {
        case let .invalidURLResource(error, key, url):
            return "Cannot inspect \(url.path) for key \"\(key)\": \(error)."
        case let .cannotLoadDataFromDisk(url, error):
            return "Cannot read the cached file \(url.path): \(error)."
        case let .cannotCreateDirectory(path, error):
            return "Cannot create the cache folder \(path): \(error)."
        case .imageNotExisting(let key):
            return "The image for key \"\(key)\" is not in the cache, and only the cache was asked."
        case let .cannotConvertToData(object, error):
            return "Cannot turn a \(type(of: object)) into bytes for the disk cache: \(error)."
        case let .cannotSerializeImage(_, _, serializer):
            return "The cache serializer \(type(of: serializer)) gave no bytes for the image."
        case let .cannotCreateCacheFile(fileURL, key, _, error):
            return "Cannot write the cache file \(fileURL.path) for key \"\(key)\": \(error)."
        case .diskStorageIsNotReady(let cacheURL):
            return "The disk cache at \(cacheURL.path) could not be set up and cannot be used."
        case let .cacheIndexFailed(path, error):
            return "Cannot read or write the cache index \(path): \(error)."
        case .fileEnumeratorCreationFailed(let url):
            return "Cannot list the cache folder \(url.path)."
        case .invalidFileEnumeratorContent(let url):
            return "The listing of the cache folder \(url.path) failed before its end."
        case let .cannotSetCacheFileAttribute(filePath, attributes, error):
            let names = attributes.keys.map(\.rawValue).sorted().joined(separator: ", ")
            return "Cannot set \(names) of the cache file \(filePath): \(error)."
        }
    }
}

extension KingfisherError.ProcessorErrorReason {
    var message: String {
        switch self {
        case let .processingFailed(processor, item):
            let name = processor.identifier.isEmpty ? "The default processor" : "The processor \(processor.identifier)"
            switch item {
            case .data(let data):
                return "\(name) gave no image for \(data.count) bytes of data."
            case .image:
                return "\(name) gave no image for the input image."
            }
        case .emptyImageData:
            return "Cannot decode an image: the data is empty."
        case .unknownImageFormat(let header):
            let hex = header.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " ")
            return "Cannot decode an image: the data is not PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL (first bytes: \(hex))."
        case let .decodingFailed(format, description):
            return "Cannot decode \(format) data: \(description)."
        case let .imageLimitExceeded(format, violation):
            return "Refused to decode \(format) data: \(violation)."
        case let .encodingFailed(format, description):
            return "Cannot encode the image as \(format): \(description)."
        }
    }
}

extension KingfisherError.ImageSettingErrorReason {
    var message: String {
        switch self {
        case .emptySource:
            return "There is no image source to set."
        case let .notCurrentSourceTask(_, _, source):
            return "The image of \(source) was not set: the target had moved on to another source."
        case let .dataProviderError(provider, error):
            let source = provider.contentURL?.absoluteString ?? provider.cacheKey
            return "The data provider for \(source) failed: \(error)."
        case .alternativeSourcesExhausted(let errors):
            let tried = errors.map { "\($0.source): \($0.error.localizedDescription)" }.joined(separator: "; ")
            return "Every source failed (\(errors.count) tried): \(tried)"
        }
    }
}
