import Crypto
import Foundation

/// AWS Signature Version 4 in its header form: the canonical request, the string to sign, the
/// signing key derived from the secret, and the `Authorization` header made from them.
///
/// The caller names every header to sign (`host` and `x-amz-date` among them) and the payload's
/// hash; the path comes already URI-encoded, as S3 signs it (each byte outside the unreserved
/// set as `%XX`, `/` kept, no `.`/`..` resolution), so the path signed is the path sent.
struct AWSSignatureV4: Sendable {
    let credentials: AWSCredentials
    let region: String
    let service: String

    /// The hash of an empty payload, which every bodiless request (a GET) signs.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash S3 accepts in place of the body's when the body is not signed.
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// What signing produced: every intermediate, for the tests and for a message that explains a refusal.
    struct Signed: Sendable {
        var canonicalRequest: String
        var stringToSign: String
        var signedHeaders: String
        var signature: String
        var authorization: String
    }

    /// Signs one request.
    ///
    /// - Parameters:
    ///   - encodedPath: the path as sent, URI-encoded (see ``uriEncode(_:keepingSlashes:)``).
    ///   - query: the query's parameters, not encoded.
    ///   - headers: the headers to sign, names in any case; repeated names are joined with `,`.
    ///   - payloadHash: the hex SHA-256 of the body, or ``unsignedPayload``.
    ///   - date: the moment the request is signed at, which `x-amz-date` must carry.
    func sign(method: String, encodedPath: String, query: [(name: String, value: String)] = [],
              headers: [(name: String, value: String)], payloadHash: String, date: Date) -> Signed {
        var grouped: [String: [String]] = [:]
        for (name, value) in headers {
            grouped[name.lowercased(), default: []].append(Self.trimmedHeaderValue(value))
        }
        let names = grouped.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(grouped[$0, default: []].joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map { parameter in
            (Self.uriEncode(parameter.name, keepingSlashes: false), Self.uriEncode(parameter.value, keepingSlashes: false))
        }
        let sortedQuery = encodedQuery.sorted { lhs, rhs in lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name }
        let canonicalQuery = sortedQuery.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let canonicalRequest = [method, encodedPath.isEmpty ? "/" : encodedPath, canonicalQuery,
                                canonicalHeaders, signedHeaders, payloadHash].joined(separator: "\n")
        let timestamp = Self.timestamp(date)
        let day = String(timestamp.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", timestamp, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        let key = Self.signingKey(secret: credentials.secretAccessKey, day: day, region: region, service: service)
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signed(canonicalRequest: canonicalRequest, stringToSign: stringToSign, signedHeaders: signedHeaders,
                      signature: signature, authorization: authorization)
    }

    /// The key for one day, region and service: HMAC-SHA256 chained from `AWS4` + the secret.
    static func signingKey(secret: String, day: String, region: String, service: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(secret)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// `20150830T123600Z`: the date in UTC as `x-amz-date` carries it.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// `text` with every byte but `A-Z a-z 0-9 - . _ ~` (and `/` when `keepingSlashes`) as `%XX`
    /// in upper-case hex, as SigV4 encodes paths and query parameters.
    static func uriEncode(_ text: some StringProtocol, keepingSlashes: Bool) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                output.append("/")
            default:
                output += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return output
    }

    /// The hex SHA-256 of `data`, for `x-amz-content-sha256` of a request with a body.
    static func payloadHash(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    /// A header value as SigV4 signs it: trimmed, every run of spaces inside made one space.
    static func trimmedHeaderValue(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
