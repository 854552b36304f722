import Foundation
import HTTPTypes
import Kingfisher
import NIOCore

extension ImageServer {
    /// Parses the request in `grammar`, checks its source, gets the rendition and builds the answer:
    /// `200` with the image (headers only for `HEAD`), or `304` when `If-None-Match` names its entity
    /// tag or, without one, `If-Modified-Since` is not older than it.
    func imageResponse(
        to request: ImageServerRequest, grammar: any RenditionGrammar, rawPath: Substring
    ) async throws -> (ImageServerResponse, CacheTier) {
        let rendition = try grammar.request(forRawPath: rawPath)
        if let expires = rendition.headers.expires, expires < Date() {
            throw ImageServerError(.notFound, "the URL expired at \(Self.httpDate(expires))")
        }
        let localFile = try self.localFile(of: rendition, grammar: grammar)
        let source = localFile?.url ?? (rendition.source.isFileURL ? rendition.fallbackSource : nil) ?? rendition.source
        let location = localFile == nil ? S3Location(url: source) : nil
        if let location {
            try checkS3Source(location, refusedStatus: grammar.refusedSourceStatus)
        } else if localFile == nil {
            guard configuration.allowedSources.allows(source) else {
                throw ImageServerError(grammar.refusedSourceStatus,
                                       "the source host '\(source.host ?? "")' is not in the allow-list (\(configuration.allowedSources.refusalHint))")
            }
        }
        for name in rendition.unsupportedFilters {
            metrics.recordUnsupportedFilter(name)
            logger.info("the \(grammar.name) filter \(name)() is not applied by kf serve; answering without it")
        }
        let watermarks = rendition.watermarks
        try checkWatermarkSources(watermarks, refusedStatus: grammar.refusedSourceStatus)
        let watermarkImages = WatermarkImages()
        let processor = try RenditionProcessor(operations: rendition.operations,
                                               maxOutputPixels: configuration.limits.maxPixelsPerFrame,
                                               watermarks: watermarkImages)
        let rendering = Self.rendering(of: rendition.output, accept: request.headerFields[.accept])
        var encoding = pipeline.encoding
        if let quality = rendition.quality { encoding.compressionQuality = min(max(quality, 0.01), 1) }
        let host = source.host ?? ""
        let addressGuard = self.addressGuard
        let (answer, tier) = try await pipeline.rendition(
            source: source, version: localFile.map { "\($0.size)-\($0.modified)" }, processor: processor, rendering: rendering,
            encoding: encoding, maxBytes: rendition.maxBytes, alphaInOpaqueFormats: rendition.alphaInOpaqueFormats,
            // A local file and an S3 endpoint are the operator's own settings, not hosts a URL chose.
            vet: { if localFile == nil, location == nil { try await addressGuard.check(host: host) } },
            prepare: { [self] in
                try await loadWatermarks(watermarks, into: watermarkImages, failureStatus: grammar.refusedSourceStatus)
            })
        metrics.recordCache(tier)

        var headers = HTTPFields()
        headers[.eTag] = answer.etag
        headers[.lastModified] = Self.httpDate(answer.lastModified)
        var maxAge = rendition.headers.maxAge ?? configuration.maxAge
        if let expires = rendition.headers.expires {
            // A URL that stops working must not be cached past that moment.
            maxAge = min(maxAge, max(0, Int(expires.timeIntervalSinceNow.rounded(.down))))
        }
        headers[.cacheControl] = "public, max-age=\(maxAge)"
        switch rendition.output {
        case .negotiated, .sourceOrAccepted: headers[.vary] = "Accept"
        case .fixed, .source: break
        }
        for (name, value) in rendition.headers.extra.sorted(by: { $0.key < $1.key }) {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        if let stem = rendition.headers.fileName {
            let disposition = rendition.headers.attachment ? "attachment" : "inline"
            let safe = stem.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline }
            headers[.contentDisposition] = "\(disposition); filename=\"\(safe).\(answer.fileExtension)\""
        }
        if Self.isNotModified(request.headerFields, answer) {
            return (ImageServerResponse(status: .notModified, headerFields: headers), tier)
        }
        headers[.contentType] = answer.contentType
        headers[.contentLength] = String(answer.bytes.count)
        let body = request.method == .head ? ByteBuffer() : ByteBuffer(bytes: answer.bytes)
        return (ImageServerResponse(status: .ok, headerFields: headers, body: body), tier)
    }

    /// The file a `file:` source names below the grammar's local root, checked against the size
    /// limit; `nil` for an http(s) source, or for a missing file the rendition may fetch instead.
    func localFile(of rendition: RenditionRequest, grammar: any RenditionGrammar) throws -> LocalFile? {
        guard rendition.source.isFileURL else { return nil }
        guard let root = grammar.localRoot else {
            throw ImageServerError(.forbidden, "local files are not served here: \(grammar.localRootSetting) names the folder to serve them from")
        }
        let file: LocalFile
        do {
            file = try root.file(at: rendition.source.path)
        } catch let error as ImageServerError where error.status == .notFound && rendition.fallbackSource != nil {
            return nil
        }
        let limit = configuration.limits.maxSourceBytes
        guard file.size <= limit else {
            throw ImageServerError(.contentTooLarge,
                "the file \(rendition.source.path) is \(file.size) bytes, over the limit of \(limit) bytes (kf serve --max-source-bytes)")
        }
        return file
    }

    /// Whether the client's validators say it holds `answer` already.
    static func isNotModified(_ headers: HTTPFields, _ answer: Rendition) -> Bool {
        if let ifNoneMatch = headers[.ifNoneMatch] { return answer.matches(ifNoneMatch: ifNoneMatch) }
        guard let since = headers[.ifModifiedSince].flatMap(parseHTTPDate) else { return false }
        return answer.lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
    }

    /// How `output` is encoded for a client sending `accept`.
    static func rendering(of output: RenditionOutput, accept: String?) -> OutputFormat.Rendering {
        switch output {
        case .fixed(let format): return .fixed(format)
        case .negotiated: return OutputFormat.auto.rendering(accept: accept)
        case .source: return .source
        case .sourceOrAccepted(let formats):
            let header = AcceptHeader(accept)
            let named = formats.filter { header.namesAcceptably($0.mimeType) }
            return named.isEmpty ? .source : .sourceOr(named)
        }
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let day = weekdays[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// An IMF-fixdate parsed, or `nil`.
    static func parseHTTPDate(_ text: String) -> Date? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int(fields[1]), let year = Int(fields[3]),
              let month = months.firstIndex(of: String(fields[2])) else { return nil }
        let time = fields[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(time[0])
        parts.tm_min = Int32(time[1])
        parts.tm_sec = Int32(time[2])
        let seconds = timegm(&parts)
        return seconds < 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
