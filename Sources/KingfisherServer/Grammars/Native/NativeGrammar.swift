import Foundation
import Hummingbird
import Kingfisher

/// The server's own grammar, `/{signature}/{format}/{spec}/{source}` (see ``ImagePath``), as a
/// ``RenditionGrammar``.
public struct NativeGrammar: RenditionGrammar {
    public var name: String { "native" }
    public var refusedSourceStatus: HTTPResponse.Status { .forbidden }

    let signer: URLSigner?
    let allowsUnsigned: Bool
    public let localRoot: LocalFileRoot?

    /// The grammar signed with `signingKey` (none: only `unsafe` paths, when `allowsUnsigned`),
    /// serving `file:` sources below `localRoot`.
    public init(signingKey: Data?, allowsUnsigned: Bool, localRoot: LocalFileRoot? = nil) {
        signer = signingKey.map { URLSigner(key: $0) }
        self.allowsUnsigned = allowsUnsigned
        self.localRoot = localRoot
    }

    public func request(forRawPath rawPath: Substring) throws -> RenditionRequest {
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard segments.count == 4, segments.allSatisfy({ !$0.isEmpty }) else {
            throw ImageServerError(.notFound, "no such path: image paths are /SIGNATURE/FORMAT/SPEC/SOURCE")
        }
        let parts = Array(segments)
        let path = try ImagePath(signature: parts[0], format: parts[1], spec: parts[2], source: parts[3])
        try verifySignature(of: path)
        let operations: [RenditionOperation] = path.spec == ImagePath.noProcessing ? [] : [.spec(path.spec)]
        let output: RenditionOutput
        switch path.format {
        case .auto: output = .negotiated
        case .jpeg: output = .fixed(.JPEG)
        case .png: output = .fixed(.PNG)
        case .webp: output = .fixed(.WebP)
        case .gif: output = .fixed(.GIF)
        case .avif: output = .fixed(.AVIF)
        case .jxl: output = .fixed(.JXL)
        }
        return RenditionRequest(source: path.source, operations: operations, output: output)
    }

    /// Throws 403 unless the path carries a valid signature, or `unsafe` on a server that allows unsigned requests.
    private func verifySignature(of path: ImagePath) throws {
        if path.signature == ImagePath.unsigned {
            guard allowsUnsigned else {
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
            throw ImageServerError(.forbidden, "the signature does not match the path: check that the URL was signed with this server's key (--key or KF_SERVE_KEY)")
        }
    }
}
