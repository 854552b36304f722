import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
#if canImport(Glibc)
import Glibc
#endif

/// A connection that failed below HTTP, in plain words: the stage that failed (connecting, the
/// TLS handshake, the exchange on an open connection, listening) and what happened.
///
/// Make one from the error AsyncHTTPClient or SwiftNIO reported, such as the one
/// ``KingfisherError/ResponseErrorReason/URLSessionError(error:)`` carries, then name the host and
/// port it concerns:
///
/// ```swift
/// if let failure = NetworkFailure(error) {
///     print(failure.description(for: url))  // could not connect to 127.0.0.1:9: connection refused
/// }
/// ```
///
/// The words never include a dependency's file paths or error codes; errors this type does not
/// know give `nil`.
public struct NetworkFailure: Sendable, Hashable, CustomStringConvertible {
    /// Where a connection failed.
    public enum Stage: Sendable, Hashable {
        /// Resolving the host name or opening the connection.
        case connecting
        /// The TLS handshake on an open connection.
        case tlsHandshake
        /// The exchange on an open connection.
        case exchange
        /// Binding the address a server was to listen on.
        case listening
    }

    /// Where it failed.
    public var stage: Stage
    /// What happened, in a few plain words, e.g. `connection refused`.
    public var what: String
    /// The host the error itself names, when it names one.
    public var host: String?
    /// The port the error itself names, when it names one.
    public var port: Int?
    /// Whether the stage failed by taking too long (rather than by being refused or broken).
    public var timedOut: Bool

    /// A failure at `stage`; `host` and `port` are those the error named, if any.
    public init(stage: Stage, what: String, host: String? = nil, port: Int? = nil, timedOut: Bool = false) {
        self.stage = stage
        self.what = what
        self.host = host
        self.port = port
        self.timedOut = timedOut
    }

    /// The failure `error` describes, or `nil` when it is not a network error this type knows.
    ///
    /// A ``KingfisherError/ResponseErrorReason/URLSessionError(error:)`` is looked into.
    public init?(_ error: any Error) {
        guard let failure = Self.classify(error) else { return nil }
        self = failure
    }

    /// The failure of a server that could not listen, from the error its bind reported; `nil`
    /// when `error` carries no system error number.
    public init?(listening error: any Error) {
        guard let code = Self.errorNumber(of: error) else { return nil }
        self.init(stage: .listening, what: Self.words(errno: code, listening: true))
    }

    /// One line naming `host` and `port` and what happened:
    /// `could not connect to 127.0.0.1:9: connection refused`,
    /// `could not listen on 127.0.0.1:8080: the address is already in use`,
    /// `TLS handshake with example.test:443 failed: the certificate is not trusted`.
    public func description(host: String, port: Int) -> String {
        line(naming: Self.endpoint(host: host, port: port))
    }

    /// ``description(host:port:)`` for the host and port of `url` (its scheme's port when it
    /// names none); the host and port the error named when `url` has no host.
    public func description(for url: URL?) -> String {
        guard let url, let host = url.host, !host.isEmpty else { return description }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return description(host: host, port: port)
    }

    /// The line with the host and port the error named, or without them when it named none.
    public var description: String {
        line(naming: host.map { host in port.map { Self.endpoint(host: host, port: $0) } ?? host })
    }

    private func line(naming endpoint: String?) -> String {
        switch stage {
        case .connecting: return "could not connect\(endpoint.map { " to \($0)" } ?? ""): \(what)"
        case .tlsHandshake: return "TLS handshake\(endpoint.map { " with \($0)" } ?? "") failed: \(what)"
        case .exchange: return "the connection\(endpoint.map { " to \($0)" } ?? "") failed: \(what)"
        case .listening: return "could not listen\(endpoint.map { " on \($0)" } ?? ""): \(what)"
        }
    }

    /// `host:port`, with an IPv6 address in brackets.
    static func endpoint(host: String, port: Int) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension NetworkFailure {
    private static func classify(_ error: any Error) -> NetworkFailure? {
        switch error {
        case let error as KingfisherError:
            if case .responseError(reason: .URLSessionError(let underlying)) = error { return classify(underlying) }
            return nil
        case let error as IOError:
            return failure(errno: error.errnoCode)
        case let error as SocketAddressError.UnknownHost:
            return NetworkFailure(stage: .connecting, what: resolverWords(error.errorCode), host: error.host, port: error.port)
        case let error as ChannelError:
            return failure(channel: error)
        case let error as HTTPClientError:
            return failure(client: error)
        case let error as NIOSSLError:
            return failure(tls: error)
        case let error as NIOSSLExtraError:
            if error == .failedToValidateHostname || error == .serverHostnameImpossibleToMatch {
                return NetworkFailure(stage: .tlsHandshake, what: "the certificate is not for this host")
            }
            return NetworkFailure(stage: .tlsHandshake, what: "the TLS setup was refused")
        case is NIOSSLCloseTimedOutError:
            return NetworkFailure(stage: .exchange, what: "the TLS connection did not close in time", timedOut: true)
        default:
            return connectionError(error)
        }
    }

    /// SwiftNIO's `NIOConnectionError` (every attempt to connect to a host), read by reflection:
    /// it lives in NIOPosix, which this module does not import.
    private static func connectionError(_ error: any Error) -> NetworkFailure? {
        guard String(describing: type(of: error)) == "NIOConnectionError" else { return nil }
        var host: String?
        var port: Int?
        var dnsError: (any Error)?
        var attemptErrors: [any Error] = []
        for child in Mirror(reflecting: error).children {
            switch child.label {
            case "host": host = child.value as? String
            case "port": port = child.value as? Int
            case "dnsAError", "dnsAAAAError": if dnsError == nil { dnsError = child.value as? any Error }
            case "connectionErrors":
                for attempt in Mirror(reflecting: child.value).children {
                    let fields = Mirror(reflecting: attempt.value).children
                    if let failure = fields.first(where: { $0.label == "error" })?.value as? any Error {
                        attemptErrors.append(failure)
                    }
                }
            default: break
            }
        }
        var failure: NetworkFailure
        if let attempt = attemptErrors.first, let known = classify(attempt) {
            failure = known
        } else if let dnsError {
            failure = classify(dnsError) ?? NetworkFailure(stage: .connecting, what: "the host name could not be resolved")
        } else {
            failure = NetworkFailure(stage: .connecting, what: "no address of the host could be reached")
        }
        failure.host = host ?? failure.host
        failure.port = port ?? failure.port
        return failure
    }

    private static func failure(errno code: CInt) -> NetworkFailure {
        let stage: Stage = [ECONNRESET, EPIPE, ECONNABORTED].contains(code) ? .exchange : .connecting
        return NetworkFailure(stage: stage, what: words(errno: code, listening: false), timedOut: code == ETIMEDOUT)
    }

    private static func failure(channel error: ChannelError) -> NetworkFailure? {
        switch error {
        case .connectTimeout: return NetworkFailure(stage: .connecting, what: "the connection timed out", timedOut: true)
        case .ioOnClosedChannel, .alreadyClosed, .eof, .inputClosed, .outputClosed:
            return NetworkFailure(stage: .exchange, what: "the connection was closed")
        case .writeHostUnreachable: return NetworkFailure(stage: .connecting, what: "the host is unreachable")
        default: return nil
        }
    }

    private static func failure(client error: HTTPClientError) -> NetworkFailure? {
        switch error {
        case .connectTimeout: return NetworkFailure(stage: .connecting, what: "the connection timed out", timedOut: true)
        case .getConnectionFromPoolTimeout: return NetworkFailure(stage: .connecting, what: "no connection was free in time", timedOut: true)
        case .tlsHandshakeTimeout: return NetworkFailure(stage: .tlsHandshake, what: "the handshake timed out", timedOut: true)
        case .remoteConnectionClosed:
            return NetworkFailure(stage: .exchange, what: "the server closed the connection before the response ended")
        case .readTimeout: return NetworkFailure(stage: .exchange, what: "the server sent nothing in time", timedOut: true)
        case .writeTimeout: return NetworkFailure(stage: .exchange, what: "the request could not be sent in time", timedOut: true)
        case .uncleanShutdown: return NetworkFailure(stage: .exchange, what: "the TLS connection was cut without being closed")
        case .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return NetworkFailure(stage: .connecting, what: "the proxy did not answer in time", timedOut: true)
        case .proxyAuthenticationRequired: return NetworkFailure(stage: .connecting, what: "the proxy requires authentication")
        case .invalidProxyResponse: return NetworkFailure(stage: .connecting, what: "the proxy's answer could not be used")
        default: return nil
        }
    }

    private static func failure(tls error: NIOSSLError) -> NetworkFailure? {
        switch error {
        case .handshakeFailed(let boringSSL):
            return NetworkFailure(stage: .tlsHandshake, what: tlsWords(boringSSL))
        case .uncleanShutdown:
            return NetworkFailure(stage: .exchange, what: "the TLS connection was cut without being closed")
        case .noCertificateToValidate:
            return NetworkFailure(stage: .tlsHandshake, what: "the server sent no certificate")
        case .unableToValidateCertificate, .cannotMatchULabel:
            return NetworkFailure(stage: .tlsHandshake, what: "the certificate could not be checked")
        case .shutdownFailed:
            return NetworkFailure(stage: .exchange, what: "the TLS connection did not close cleanly")
        default:
            return nil
        }
    }

    /// What a BoringSSL error stack means, from the reason codes of its entries (never their
    /// file paths).
    private static func tlsWords(_ error: BoringSSLError) -> String {
        let stack: [BoringSSLInternalError]
        switch error {
        case .sslError(let errors), .unknownError(let errors), .invalidSNIName(let errors), .failedToSetALPN(let errors):
            stack = errors
        case .zeroReturn, .syscallError:
            return "the server closed the connection"
        default:
            return "the handshake did not complete"
        }
        let reasons = stack.compactMap { reasonCode(of: $0) }
        if stack.contains(.eofDuringHandshake) { return "the server closed the connection" }
        for reason in reasons {
            switch reason {
            case "CERTIFICATE_VERIFY_FAILED": return "the certificate is not trusted"
            case "WRONG_VERSION_NUMBER", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG", "RECORD_TOO_LARGE":
                return "the server did not answer in TLS (is it plain HTTP?)"
            case "UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_PROTOCOL_VERSION":
                return "the server and the client share no TLS version"
            case "NO_SHARED_CIPHER", "SSLV3_ALERT_HANDSHAKE_FAILURE", "HANDSHAKE_FAILURE_ON_CLIENT_HELLO":
                return "the server and the client share no cipher"
            case "TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "TLSV1_ALERT_CERTIFICATE_REQUIRED":
                return "the server refused the client's certificate"
            case "TLSV1_UNRECOGNIZED_NAME", "TLSV1_ALERT_UNRECOGNIZED_NAME":
                return "the server does not serve this host name"
            default: continue
            }
        }
        if let reason = reasons.first {
            return reason.lowercased().replacingOccurrences(of: "_", with: " ")
        }
        return "the handshake did not complete"
    }

    /// `CERTIFICATE_VERIFY_FAILED` from `Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /path:393`.
    private static func reasonCode(of error: BoringSSLInternalError) -> String? {
        let text = error.description
        guard let start = text.range(of: "error:") else { return nil }
        let rest = text[start.upperBound...]
        let message = rest.range(of: " at ").map { rest[..<$0.lowerBound] } ?? rest
        guard let code = message.split(separator: ":").last else { return nil }
        let reason = String(code)
        guard !reason.isEmpty, reason.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }) else { return nil }
        return reason
    }

    /// The system error number an error carries, for errors of the socket calls.
    static func errorNumber(of error: any Error) -> CInt? {
        if let error = error as? IOError { return error.errnoCode }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return CInt(truncatingIfNeeded: nsError.code) }
        return nil
    }

    /// An `errno` of a socket call in plain words.
    static func words(errno code: CInt, listening: Bool) -> String {
        switch code {
        case ECONNREFUSED: return "connection refused"
        case ECONNRESET: return "the connection was reset by the other end"
        case ECONNABORTED: return "the connection was aborted"
        case EPIPE: return "the other end closed the connection"
        case EHOSTUNREACH: return "the host is unreachable"
        case ENETUNREACH: return "the network is unreachable"
        case ENETDOWN: return "the network is down"
        case EHOSTDOWN: return "the host is down"
        case ETIMEDOUT: return "the connection timed out"
        case EADDRINUSE: return "the address is already in use"
        case EADDRNOTAVAIL: return listening ? "the address is not one of this machine's" : "no local address can reach it"
        case EACCES: return listening ? "permission denied (ports below 1024 need privileges)" : "permission denied"
        case EPERM: return "the operation is not permitted (a firewall?)"
        case EMFILE, ENFILE: return "too many open files"
        case EAFNOSUPPORT: return "the address family is not supported"
        default:
            guard let text = strerror(code) else { return "system error \(code)" }
            return String(cString: text).lowercased()
        }
    }

    /// A `getaddrinfo` error in plain words.
    private static func resolverWords(_ code: Int) -> String {
        switch CInt(truncatingIfNeeded: code) {
        case EAI_NONAME: return "the host name is not known"
        case EAI_AGAIN: return "the host name could not be resolved now (no answer from DNS)"
        case EAI_FAIL: return "the host name could not be resolved (DNS failed)"
        default: return "the host name could not be resolved"
        }
    }
}
