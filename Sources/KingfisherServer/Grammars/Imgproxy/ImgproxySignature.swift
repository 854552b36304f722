import Crypto
import Foundation

/// imgproxy's URL signature: base64url without padding of HMAC-SHA256(key, salt ‖ path), the digest
/// cut to the configured size, `path` being everything after the signature segment, from its `/`.
public struct ImgproxySigner: Sendable {
    private let pairs: [(key: SymmetricKey, salt: [UInt8])]
    private let size: Int
    private let trusted: Set<String>

    /// A signer for `configuration`'s key/salt pairs, signature size and trusted signatures.
    public init(configuration: ImgproxyConfiguration) {
        pairs = zip(configuration.keys, configuration.salts).map { (SymmetricKey(data: $0), $1) }
        size = configuration.signatureSize
        trusted = Set(configuration.trustedSignatures)
    }

    /// The signature of `path` (starting with `/`) with the first key/salt pair, or `nil` without keys.
    public func signature(for path: some StringProtocol) -> String? {
        guard let pair = pairs.first else { return nil }
        return Base64URL.encode(Data(Self.digest(path: path, key: pair.key, salt: pair.salt).prefix(size)))
    }

    /// Whether `signature` signs `path` with any key/salt pair, or is trusted; compared in constant time.
    public func isValid(signature: some StringProtocol, path: some StringProtocol) -> Bool {
        if trusted.contains(String(signature)) { return true }
        guard !signature.contains("="), let given = Base64URL.decode(signature) else { return false }
        var valid = false
        for pair in pairs {
            let expected = Self.digest(path: path, key: pair.key, salt: pair.salt).prefix(size)
            valid = Self.constantTimeEqual(Array(given), Array(expected)) || valid
        }
        return valid
    }

    /// HMAC-SHA256(key, salt ‖ path), a `/` put before a path that lacks it, as imgproxy does.
    private static func digest(path: some StringProtocol, key: SymmetricKey, salt: [UInt8]) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: salt)
        if !path.hasPrefix("/") { hmac.update(data: [UInt8(ascii: "/")]) }
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }

    /// Equality whose time depends only on the lengths.
    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
