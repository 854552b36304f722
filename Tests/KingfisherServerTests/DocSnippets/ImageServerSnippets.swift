import Foundation
import HummingbirdTesting
import Testing
// snippet: server-mount-in-hummingbird
import Hummingbird
import Kingfisher
import KingfisherServer
// end snippet

/// docs/ImageServer.md's Hummingbird example: the image server's routes mounted below `/images`
/// beside an application's own route, built as the guide shows it (DocSnippetTests checks the
/// text) and answered through Hummingbird's router tester.
enum ImageServerDocSnippets {
    /// The application of the example, signed with `secret`.
    static func mountedApplication(secret: String) -> some ApplicationProtocol {
        // snippet: server-mount-in-hummingbird
        let server = ImageServer(
            configuration: ImageServerConfiguration(
                signingKey: Data(secret.utf8),
                allowedSources: SourceAllowList(["images.example.com", "https://bucket.example.com/public/"])),
            manager: KingfisherManager.shared)

        let router = Router()
        router.get("hello") { _, _ in "the app's own route\n" }
        router.add(middleware: server.unmatchedRequestMiddleware())   // kf serve's 404 and 405, logged
        server.addRoutes(to: router.group("images"))                  // /images/SIGNATURE/FORMAT/SPEC/SOURCE
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
        // end snippet
        return app
    }
}

@Suite struct ImageServerDocSnippetTests {
    @Test func theMountedServerAnswersBesideTheApplicationsOwnRoutes() async throws {
        let app = ImageServerDocSnippets.mountedApplication(secret: "a secret for the documentation")
        try await app.test(.router) { client in
            let hello = try await client.execute(uri: "/hello", method: .get)
            #expect(String(buffer: hello.body) == "the app's own route\n")
            let health = try await client.execute(uri: "/images/health", method: .get)
            #expect(health.status == .ok)
            #expect(String(buffer: health.body) == "ok\n")
            let unsigned = try await client.execute(uri: "/images/unsafe/png/-/aHR0cHM6Ly9pbWFnZXMuZXhhbXBsZS5jb20vYS5wbmc", method: .get)
            #expect(unsigned.status == .forbidden)
            let elsewhere = try await client.execute(uri: "/nothing-here", method: .get)
            #expect(elsewhere.status == .notFound)
        }
    }
}
