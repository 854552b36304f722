import Crypto
import Foundation

extension String: KingfisherCompatibleValue {}

extension KingfisherWrapper where Base == String {
    /// The SHA-256 digest of the string's UTF-8 bytes, as 64 lowercase hexadecimal digits.
    ///
    /// The disk cache names its files with this, so the same key always maps to the same file
    /// on every platform and in every process.
    public var sha256: String {
        let digest = SHA256.hash(data: Data(base.utf8))
        var hex = [UInt8]()
        hex.reserveCapacity(64)
        let digits = Array("0123456789abcdef".utf8)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
