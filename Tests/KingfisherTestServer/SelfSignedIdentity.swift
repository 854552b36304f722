import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// A throwaway certificate and key for the TLS test server, made fresh at each start.
///
/// The certificate is self-signed for `localhost` and `127.0.0.1`, valid from an hour ago for a
/// week, and marked as a CA so a client can use it directly as its trust root.
struct SelfSignedIdentity: Sendable {
    let certificatePEM: String
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

    static func make() throws -> SelfSignedIdentity {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("localhost")
            OrganizationName("Kingfisher test server")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([
                .dnsName("localhost"),
                .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            ])
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(7 * 86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        let pem = try certificate.serializeAsPEM().pemString
        return SelfSignedIdentity(
            certificatePEM: pem,
            certificate: try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem),
            privateKey: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        )
    }

    /// TLS settings for the server: this identity, ALPN offering HTTP/2 first, then HTTP/1.1.
    func serverContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(certificate)], privateKey: .privateKey(privateKey))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        // Shutdown closes connections with close_notify; don't wait long for a client that never answers.
        configuration.shutdownTimeout = .milliseconds(500)
        return try NIOSSLContext(configuration: configuration)
    }
}
