import Foundation
import Hummingbird
import Kingfisher

extension ImageServer {
    /// Checks the request (path, signature, allow-list), gets the rendition and builds the answer:
    /// `200` with the image, or `304` when `If-None-Match` names its entity tag.
    func imageResponse(to request: Request, parameters: Parameters) async throws -> (Response, CacheTier) {
        let signature: String = parameters.get("signature") ?? ""
        let format: String = parameters.get("format") ?? ""
        let spec: String = parameters.get("spec") ?? ""
        let source: String = parameters.get("source") ?? ""
        let path = try ImagePath(signature: Substring(signature), format: Substring(format), spec: Substring(spec), source: Substring(source))
        try verifySignature(of: path)
        let processor = try path.processor()
        guard configuration.allowedSources.allows(path.source) else {
            throw ImageServerError(.forbidden, "the source host '\(path.source.host ?? "")' is not in the allow-list")
        }
        let rendering = path.format.rendering(accept: request.headers[.accept])
        let host = path.source.host ?? ""
        let addressGuard = self.addressGuard
        let (rendition, tier) = try await pipeline.rendition(
            source: path.source, processor: processor, rendering: rendering,
            vet: { try await addressGuard.check(host: host) })
        metrics.recordCache(tier)

        var headers = HTTPFields()
        headers[.eTag] = rendition.etag
        headers[.cacheControl] = "public, max-age=\(configuration.maxAge)"
        if path.format == OutputFormat.auto { headers[.vary] = "Accept" }
        if let ifNoneMatch = request.headers[.ifNoneMatch], rendition.matches(ifNoneMatch: ifNoneMatch) {
            return (Response(status: .notModified, headers: headers), tier)
        }
        headers[.contentType] = rendition.contentType
        let body = ResponseBody(byteBuffer: ByteBuffer(bytes: rendition.bytes))
        return (Response(status: .ok, headers: headers, body: body), tier)
    }

    /// Throws 403 unless the path carries a valid signature, or `unsafe` on a server that allows unsigned requests.
    private func verifySignature(of path: ImagePath) throws {
        if path.signature == ImagePath.unsigned {
            guard configuration.allowsUnsigned else {
                throw ImageServerError(.forbidden, "the request is not signed and the server accepts only signed requests")
            }
            return
        }
        guard let signer else {
            throw ImageServerError(.forbidden, "the server has no signing key; only 'unsafe' paths are served")
        }
        guard signer.isValid(
            signature: path.signature, format: path.format.rawValue, spec: path.spec, source: path.source.absoluteString)
        else {
            throw ImageServerError(.forbidden, "the signature does not match the path")
        }
    }
}
