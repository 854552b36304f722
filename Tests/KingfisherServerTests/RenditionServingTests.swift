import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Kingfisher
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// What every grammar gets from the server: the originals cache, redirects checked hop by hop,
/// HEAD, Last-Modified, per-request quality and size caps, and mounts at prefixes.
@Suite("kf serve renditions")
struct RenditionServingTests {
    @Test("twenty sizes of one photo fetch the origin twice (its original is kept from the second size on); without the originals cache, once each")
    func originalsAreFetchedOnce() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let disk = harness.server.pipeline.manager.cache.diskStorage
            let originalKey = RenditionPipeline.originalKey(for: harness.origin.url("/a.jpg"))
            for side in 10..<30 {
                let response = try await harness.get(harness.path("/a.jpg", spec: "downsample(\(side)x\(side))", format: .png))
                #expect(response.status == .ok)
                let header = try ImageHeader(data: response.data)
                #expect(max(header.pixelWidth, header.pixelHeight) == side)
                // A source asked for at one size only leaves no original on the disk.
                #expect(disk.isCached(forKey: originalKey) == (side > 10), "after size \(side)")
            }
            #expect(harness.origin.requestCount(for: "/a.jpg") == 2)
        }
        try await ServeKit.run(configure: { $0.keepsOriginals = false }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            for side in 10..<13 {
                let response = try await harness.get(harness.path("/a.jpg", spec: "downsample(\(side)x\(side))"))
                #expect(response.status == .ok)
            }
            #expect(harness.origin.requestCount(for: "/a.jpg") == 3)
        }
    }

    @Test("HEAD answers the headers of GET with no body")
    func head() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let path = harness.path("/a.jpg", spec: "downsample(20x20)", format: .webp)
            let head = try await harness.send(.head, path)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            let get = try await harness.get(path)
            #expect(head.headers[.contentLength] == String(get.data.count))
            #expect(head.headers[.contentType] == "image/webp")
            #expect(head.headers[.eTag] == get.headers[.eTag])
        }
    }

    @Test("Last-Modified is sent and If-Modified-Since at or after it is 304")
    func lastModified() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let path = harness.path("/a.jpg", spec: "downsample(20x20)")
            let first = try await harness.get(path)
            let stamp = try #require(first.headers[.lastModified])
            let date = try #require(ImageServer.parseHTTPDate(stamp))
            #expect(abs(date.timeIntervalSinceNow) < 120)
            #expect(ImageServer.httpDate(date) == stamp)
            // The second answer comes from the disk and the third from memory: each tier gives
            // the same date, so each is 304 however many seconds have passed.
            for _ in 0..<2 {
                let again = try await harness.get(path, headers: [.ifModifiedSince: stamp])
                #expect(again.status == .notModified)
                #expect(again.headers[.lastModified] == stamp)
            }
            let earlier = ImageServer.httpDate(date.addingTimeInterval(-3600))
            #expect(try await harness.get(path, headers: [.ifModifiedSince: earlier]).status == .ok)
        }
    }

    @Test("redirects are followed within the allow-list and refused, naming the hop, outside it")
    func redirects() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            harness.origin.route("/moved.jpg", .redirect(to: harness.origin.url("/a.jpg").absoluteString))
            harness.origin.route("/away.jpg", .redirect(to: "http://example.com/a.jpg"))
            harness.origin.route("/file.jpg", .redirect(to: "file:///etc/passwd"))
            let moved = try await harness.get(harness.path("/moved.jpg", spec: "downsample(16x16)"))
            #expect(moved.status == .ok)
            #expect(try ImageHeader(data: moved.data).pixelWidth == 16)
            let away = try await harness.get(harness.path("/away.jpg", spec: "downsample(16x16)"))
            #expect(away.status == .forbidden)
            #expect(away.text.contains("redirected to host 'example.com'"))
            let file = try await harness.get(harness.path("/file.jpg", spec: "downsample(16x16)"))
            #expect(file.status == .forbidden)
            #expect(file.text.contains("not an http(s) URL"))
        }
        try await ServeKit.run(configure: { $0.maxRedirects = 0 }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            harness.origin.route("/moved.jpg", .redirect(to: harness.origin.url("/a.jpg").absoluteString))
            let moved = try await harness.get(harness.path("/moved.jpg", spec: "downsample(16x16)"))
            #expect(moved.status.code >= 400)
            #expect(harness.origin.requestCount(for: "/a.jpg") == 0)
        }
    }

    @Test("quality and a byte cap are per request, and each has its own cache entry")
    func qualityAndMaxBytes() async throws {
        try await ServeKit.run { harness in
            let photo = try ServeKit.gradient(width: 400, height: 300, alpha: false).encoded(as: .JPEG)
            harness.origin.route("/p.jpg", .ok(photo))
            let source = harness.origin.url("/p.jpg")
            let processor = try RenditionProcessor(operations: [])
            func bytes(quality: Double?, maxBytes: Int?) async throws -> Data {
                var encoding = harness.server.pipeline.encoding
                if let quality { encoding.compressionQuality = quality }
                return try await harness.server.pipeline.rendition(
                    source: source, processor: processor, rendering: .fixed(.JPEG), encoding: encoding, maxBytes: maxBytes,
                    vet: {}).0.bytes
            }
            let high = try await bytes(quality: 0.95, maxBytes: nil)
            let low = try await bytes(quality: 0.3, maxBytes: nil)
            #expect(low.count < high.count)
            let capped = try await bytes(quality: 0.95, maxBytes: low.count + 200)
            #expect(capped.count <= low.count + 200)
            #expect(capped.count < high.count)
            #expect(try await bytes(quality: 0.95, maxBytes: nil) == high)
        }
    }

    @Test("the source's own format is kept when a grammar asks for it; HEIC is answered as JPEG")
    func sourceFormat() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.png", .ok(ServeKit.png))
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let processor = try RenditionProcessor(operations: [.step(.flip(horizontal: true, vertical: false))])
            for (route, format) in [("/a.png", ImageFormat.PNG), ("/a.jpg", .JPEG)] {
                let (rendition, _) = try await harness.server.pipeline.rendition(
                    source: harness.origin.url(route), processor: processor, rendering: .source, vet: {})
                #expect(ImageFormat(data: rendition.bytes) == format, "\(route)")
            }
        }
    }

    @Test("geometry that would make an image over the pixel limit is refused with 422 before any pixel is made")
    func oversizedOutput() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let huge = try RenditionProcessor(
                operations: [.step(.extend(width: 1 << 20, height: 1 << 20, x: 0, y: 0, background: .white))],
                maxOutputPixels: 1_000_000)
            await #expect {
                _ = try await harness.server.pipeline.rendition(
                    source: harness.origin.url("/a.jpg"), processor: huge, rendering: .fixed(.PNG), vet: {})
            } throws: { error in
                guard let refusal = error as? ImageServerError else { return false }
                return refusal.status == .unprocessableContent
                    && refusal.reason.hasPrefix("the requested image would be 1048576×1048576, over the limit of 1000000 pixels")
            }
            let padded = try RenditionProcessor(
                operations: [.filter(.pad(top: Int.max, right: 1, bottom: 1, left: 1, color: .white))], maxOutputPixels: 1_000_000)
            await #expect(throws: ImageServerError.self) {
                _ = try await harness.server.pipeline.rendition(
                    source: harness.origin.url("/a.jpg"), processor: padded, rendering: .fixed(.PNG), vet: {})
            }
        }
    }

    @Test("thumbor's JPEG of a transparent image drops the alpha channel; kf's own composites onto black")
    func alphaInJPEG() async throws {
        let thumbor = GrammarMount(prefix: "/t", grammar: ThumborGrammar(securityKey: nil, allowsUnsafe: true))
        try await ServeKit.run(configure: { $0.mounts = [thumbor] }) { harness in
            harness.origin.route("/a.png", .ok(ServeKit.png))
            let host = try #require(harness.origin.url("/a.png").host)
            let port = try #require(harness.origin.url("/a.png").port)
            let dropped = try await harness.get("/t/unsafe/filters:format(jpeg)/\(host):\(port)/a.png")
            let composited = try await harness.get(harness.path("/a.png", format: .jpeg))
            #expect(dropped.status == .ok && composited.status == .ok)
            // Bottom-left: alpha 128, straight green 255; over black it is 128.
            func green(_ data: Data) throws -> Int {
                let frame = try KFCrossPlatformImage(data: data).firstFrame
                return Int(frame.pixels[((frame.height - 1) * frame.width) * 4 + 1])
            }
            #expect(try green(dropped.data) > 230)
            #expect(try abs(green(composited.data) - 128) < 20)
        }
    }

    @Test("a grammar mounted at a prefix gets the raw path below it; other paths stay the server's")
    func mounts() async throws {
        let grammar = EchoGrammar()
        try await ServeKit.run(configure: { $0.mounts = [GrammarMount(prefix: "echo/", grammar: grammar)] }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let source = harness.origin.url("/a.jpg").absoluteString
            let encoded = source.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let echoed = try await harness.get("/echo/\(encoded)")
            #expect(echoed.status == .ok)
            #expect(ImageFormat(data: echoed.data) == .PNG)
            #expect(try await harness.get("/echo").status == .notFound)
            #expect(try await harness.get("/health").status == .ok)
            #expect(try await harness.get(harness.path("/a.jpg")).status == .ok)
            let refused = try await harness.get("/echo/\("http://example.com/a.jpg".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
            #expect(refused.status == .notAcceptable)
        }
        try await ServeKit.run(configure: { $0.mounts = [GrammarMount(prefix: "/", grammar: grammar)] }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let encoded = harness.origin.url("/a.jpg").absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let image = try await harness.get("/\(encoded)")
            #expect(image.status == .ok)
            #expect(try await harness.get("/health").text == "ok\n")
            #expect(try await harness.get("/healthcheck").text == "WORKING")
        }
    }
}

/// A grammar whose path is one percent-encoded source URL, answered as PNG; refusals are 406 so
/// the tests can tell them from the server's own.
private struct EchoGrammar: RenditionGrammar {
    var name: String { "echo" }
    var refusedSourceStatus: HTTPResponse.Status { .notAcceptable }

    func request(forRawPath rawPath: Substring) throws -> RenditionRequest {
        guard let text = rawPath.dropFirst().removingPercentEncoding, let url = URL(string: text), url.host != nil else {
            throw ImageServerError(.notFound, "not a source")
        }
        return RenditionRequest(source: url, output: .fixed(.PNG))
    }
}
