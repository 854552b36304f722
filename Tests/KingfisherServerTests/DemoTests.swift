import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import KingfisherServer

@Suite("kf serve demo page")
struct DemoTests {
    @Test("without demo samples there is no page at /")
    func off() async throws {
        try await ServeKit.run { harness in
            let page = try await harness.get("/")
            #expect(page.status == .notFound)
            let signer = try await harness.get("/demo/sign?source=http://127.0.0.1/a.jpg")
            #expect(signer.status == .notFound)
        }
    }

    @Test("the page lists the samples and its signer gives paths the server answers")
    func on() async throws {
        try await ServeKit.run(configure: { $0.demoSamples = [URL(string: "http://127.0.0.1/x.jpg?a=1&b=<2>")].compactMap { $0 } }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let page = try await harness.get("/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("<option value=\"http://127.0.0.1/x.jpg?a=1&amp;b=%3C2%3E\">"))
            #expect(DemoPage.escape("<a href=\"x\">&</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;")

            let source = harness.origin.url("/a.jpg").absoluteString
            let query = "source=\(source)&spec=downsample(8x8)%7C%3Eblur(1)&format=webp"
            let signed = try await harness.get("/demo/sign?\(query)")
            #expect(signed.status == .ok)
            let path = try #require(try JSONDecoder().decode([String: String].self, from: signed.data)["path"])
            #expect(path == harness.path("/a.jpg", spec: "downsample(8x8)|>blur(1)", format: .webp))
            let image = try await harness.get(path)
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/webp")

            #expect(try await harness.get("/demo/sign?source=http://example.com/a.jpg").status == .forbidden)
            #expect(try await harness.get("/demo/sign?source=\(source)&spec=blur(").status == .badRequest)
            #expect(try await harness.get("/demo/sign?source=file:///etc/passwd").status == .badRequest)
        }
    }
}
