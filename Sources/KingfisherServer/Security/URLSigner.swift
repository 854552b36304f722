import Crypto
import Foundation

/// Signs and checks image paths with HMAC-SHA256.
///
/// The signature covers the format, the processor spec and the source URL, decoded, each on its own
/// line after a version tag, so percent-encoding differences between clients and proxies never
/// change it. It is written base64url without padding (43 characters).
public struct URLSigner: Sendable {
    private let key: SymmetricKey

    /// A signer with `key`; the key should be at least 32 random bytes.
    public init(key: Data) {
        self.key = SymmetricKey(data: key)
    }

    /// The signature of a request for `source` processed by `spec` in `format`.
    public func signature(format: String, spec: String, source: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Self.message(format: format, spec: spec, source: source), using: key)
        return Base64URL.encode(Data(code))
    }

    /// Whether `signature` is the signature of the request; compared in constant time.
    public func isValid(signature: String, format: String, spec: String, source: String) -> Bool {
        guard let code = Base64URL.decode(signature), code.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            code, authenticating: Self.message(format: format, spec: spec, source: source), using: key)
    }

    private static func message(format: String, spec: String, source: String) -> Data {
        Data("kf-serve-v1\n\(format)\n\(spec)\n\(source)".utf8)
    }
}

/// base64url without padding (RFC 4648 §5), as the image paths use it.
public enum Base64URL {
    /// `data` in base64url without `=` padding.
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url `text`, padded or not; `nil` when it is not base64url.
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: base64)
    }
}
