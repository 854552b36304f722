import Crypto
import Foundation
import Kingfisher
import KingfisherServer
import KingfisherTestServer
import KingfisherVapor
import Vapor

/// Keys and signed paths for an image server whose origin is `origin`: kf's own grammar at the
/// mount point, thumbor's below `/thumbor`, imgproxy's below `/imgproxy`.
struct SignedPaths: Sendable {
    static let key = Data("kf-vapor-mount-test-key".utf8)
    static let thumborKey = Data("thumbor-test-key".utf8)
    static let imgproxyKey = Array("imgproxy-test-key".utf8)
    static let imgproxySalt = Array("imgproxy-test-salt".utf8)

    let origin: TestHTTPServer

    /// The configuration both the Vapor mount and `kf serve`'s own application run with in these tests.
    static func configuration() throws -> ImageServerConfiguration {
        let imgproxy = try ImgproxyConfiguration(keys: [imgproxyKey], salts: [imgproxySalt])
        return ImageServerConfiguration(
            signingKey: key, allowedSources: SourceAllowList(["127.0.0.1"]), allowedAddresses: ["127.0.0.1"],
            maxAge: 600,
            mounts: [
                GrammarMount(prefix: "thumbor", grammar: ThumborGrammar(securityKey: thumborKey, allowsUnsafe: false)),
                GrammarMount(prefix: "imgproxy", grammar: ImgproxyGrammar(configuration: imgproxy)),
            ])
    }

    /// kf's own signed path: `route` on the origin processed by `spec`, in `format`.
    func native(_ route: String, spec: String, format: OutputFormat) -> String {
        ImagePath(source: origin.url(route), spec: spec, format: format, signer: URLSigner(key: Self.key)).path
    }

    /// thumbor's signed path for `options` (such as `100x50`) and `route` on the origin, below `/thumbor`.
    func thumbor(_ route: String, options: String) -> String {
        let signed = "\(options)/127.0.0.1:\(origin.port)\(route)"
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(signed.utf8), using: SymmetricKey(data: Self.thumborKey))
        let signature = Data(code).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "/thumbor/\(signature)/\(signed)"
    }

    /// imgproxy's signed path for `options` (such as `rs:fit:80:80`) and `route` on the origin,
    /// its source in base64url with `.extension` naming the output, below `/imgproxy`.
    func imgproxy(_ route: String, options: String, extension: String) throws -> String {
        let source = Data(origin.url(route).absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let path = "/\(options)/\(source).\(`extension`)"
        let configuration = try ImgproxyConfiguration(keys: [Self.imgproxyKey], salts: [Self.imgproxySalt])
        let signature = try XCTUnwrapSignature(ImgproxySigner(configuration: configuration).signature(for: path))
        return "/imgproxy/\(signature)\(path)"
    }
}

/// `signature`, or a thrown error when the signer has no key.
private func XCTUnwrapSignature(_ signature: String?) throws -> String {
    guard let signature else { throw Abort(.internalServerError, reason: "the imgproxy signer has no key") }
    return signature
}

/// A Vapor application in testing mode with the image server mounted at `/images`, its caches in a
/// throw-away folder; returns the application, the server and the folder.
func makeImageServerApp(configuration: ImageServerConfiguration) async throws -> (Application, ImageServer, URL) {
    let app = try await Application.make(.testing)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-vapor-mount-\(UUID().uuidString)")
    app.kingfisher.configuration = .init(name: "test", cacheDirectory: folder)
    app.get("hello") { _ in "the app's own route\n" }
    let server = try app.kingfisher.mountImageServer(at: "images", configuration: configuration)
    return (app, server, folder)
}

/// The decoded size of `data`, in pixels (images decoded from data have a scale of 1).
func pixelSize(of data: Data) throws -> CGSize {
    try KFCrossPlatformImage(data: data).size
}
