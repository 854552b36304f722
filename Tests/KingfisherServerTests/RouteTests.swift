import Foundation
import Hummingbird
import HummingbirdTesting
import Kingfisher
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve routes")
struct RouteTests {
    @Test("a signed path answers the processed image with its headers")
    func processedImage() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            let response = try await harness.get(harness.path("/a.jpg", spec: "downsample(32x32)", format: .png))
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/png")
            #expect(response.headers[.contentLength] == String(response.body.readableBytes))
            #expect(response.headers[.cacheControl] == "public, max-age=600")
            #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
            #expect(response.headers[.vary] == nil)
            let image = try KFCrossPlatformImage(data: response.data)
            #expect(image.pixelWidth == 32)
            #expect(image.pixelHeight == 24)
        }
    }

    @Test("each fixed format is answered in that format", arguments: [OutputFormat.jpeg, .png, .webp, .gif])
    func formats(format: OutputFormat) async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let response = try await harness.get(harness.path("/a.jpg", format: format))
            #expect(response.status == .ok)
            let expected: ImageFormat = switch format {
            case .jpeg: .JPEG
            case .png: .PNG
            case .webp: .WebP
            default: .GIF
            }
            #expect(ImageFormat(data: response.data) == expected)
            #expect(response.headers[.contentType] == expected.mimeType)
        }
    }

    @Test("auto answers WebP to clients that accept it, JPEG or PNG to others, with Vary: Accept")
    func autoFormat() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            harness.origin.route("/b.png", .ok(ServeKit.png))
            let webp = try await harness.get(harness.path("/a.jpg", format: .auto), headers: [.accept: "image/webp,*/*"])
            #expect(webp.headers[.contentType] == "image/webp")
            #expect(webp.headers[.vary] == "Accept")
            let plain = try await harness.get(harness.path("/a.jpg", format: .auto), headers: [.accept: "image/*"])
            #expect(plain.headers[.contentType] == "image/jpeg")
            #expect(plain.headers[.vary] == "Accept")
            #expect(plain.headers[.eTag] != webp.headers[.eTag])
            let refused = try await harness.get(harness.path("/a.jpg", format: .auto), headers: [.accept: "image/webp;q=0"])
            #expect(refused.headers[.contentType] == "image/jpeg")
            let alpha = try await harness.get(harness.path("/b.png", format: .auto))
            #expect(alpha.headers[.contentType] == "image/png")
        }
    }

    @Test("/health answers ok and /metrics the Prometheus metrics")
    func healthAndMetrics() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let health = try await harness.get("/health")
            #expect(health.status == .ok)
            #expect(health.text == "ok\n")
            // A rendition is made once, read from the disk on its second request, and kept in
            // memory only from then on (one-off renditions never take memory).
            for _ in 0..<3 { _ = try await harness.get(harness.path("/a.jpg")) }
            let metrics = try await harness.get("/metrics").text
            #expect(metrics.contains(#"kf_serve_requests_total{route="image",status="200",grammar="native"} 3"#))
            #expect(metrics.contains(#"kf_serve_requests_total{route="health",status="200",grammar="none"} 1"#))
            #expect(metrics.contains(#"kf_serve_cache_total{tier="origin"} 1"#))
            #expect(metrics.contains(#"kf_serve_cache_total{tier="disk"} 1"#))
            #expect(metrics.contains(#"kf_serve_cache_total{tier="memory"} 1"#))
            #expect(metrics.contains("kf_serve_request_duration_seconds_bucket"))
            #expect(metrics.contains("kf_serve_upstream_bytes_total \(ServeKit.jpeg.count)"))
        }
    }

    @Test("every request is one log line and counted, routes or not; what no route serves is refused with a reason")
    func everyRequestIsLoggedAndCounted() async throws {
        let log = LogCapture()
        try await ServeKit.run(log: log) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            #expect(try await harness.get(harness.path("/a.jpg")).status == .ok)
            #expect(try await harness.get("/health").status == .ok)
            #expect(try await harness.get("/metrics").status == .ok)

            let unknown = try await harness.get("/favicon.ico")
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "text/plain; charset=utf-8")
            #expect(unknown.text == "nothing is served at /favicon.ico: images are at /SIGNATURE/FORMAT/SPEC/SOURCE, and /health and /metrics are the other paths\n")

            let post = try await harness.send(.post, "/health")
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET, HEAD")
            #expect(post.text == "POST is not answered: the server answers GET and HEAD requests only\n")

            let metrics = try await harness.get("/metrics").text
            for line in [
                #"kf_serve_requests_total{route="image",status="200",grammar="native"} 1"#,
                #"kf_serve_requests_total{route="health",status="200",grammar="none"} 1"#,
                #"kf_serve_requests_total{route="metrics",status="200",grammar="none"} 1"#,
                #"kf_serve_requests_total{route="unmatched",status="404",grammar="none"} 1"#,
                #"kf_serve_requests_total{route="unmatched",status="405",grammar="none"} 1"#,
            ] {
                #expect(metrics.contains(line), "\(line)")
            }
            // Only image requests are timed and in flight.
            #expect(metrics.contains("kf_serve_request_duration_seconds_count 1"))
        }
        let lines = log.lines
        #expect(lines.map(\.message).dropFirst() == ["GET /health", "GET /metrics", "GET /favicon.ico", "POST /health", "GET /metrics"])
        #expect(lines.first?.message.hasPrefix("GET /") == true && lines.first?.metadata["cache"] == "origin")
        for line in lines {
            #expect(Set(line.metadata.keys).isSuperset(of: ["status", "bytes", "ms", "cache"]), "\(line)")
        }
        #expect(lines[1].level == .info && lines[1].metadata["status"] == "200" && lines[1].metadata["bytes"] == "3")
        #expect(lines[3].level == .notice && lines[3].metadata["status"] == "404")
        #expect(lines[3].metadata["reason"]?.hasPrefix("nothing is served at /favicon.ico") == true)
        #expect(lines[4].metadata["status"] == "405" && lines[4].metadata["reason"] != nil)
    }

    @Test("a 404 that an application's own route throws is left alone")
    func applicationNotFound() async throws {
        try await ServeKit.run(applicationRoutes: { router in
            router.get("users/:id") { _, _ -> Response in throw HTTPError(.notFound, message: "no such user") }
        }) { harness in
            let response = try await harness.get("/users/7")
            #expect(response.status == .notFound)
            #expect(response.text.contains("no such user") && !response.text.contains("nothing is served"))
        }
    }

    @Test("an origin that refuses the connection is 502 naming its host and port")
    func refusedOrigin() async throws {
        try await ServeKit.run { harness in
            let closed = try RefusingPort()
            defer { closed.close() }
            let port = closed.port
            let url = closed.url("/a.jpg")
            let response = try await harness.get(harness.server.path(for: url, spec: ImagePath.noProcessing, format: .png))
            #expect(response.status == .badGateway)
            #expect(response.text == "could not connect to 127.0.0.1:\(port): connection refused\n")
        }
    }

    @Test("a bad spec, format or source is 400 with a one-line reason")
    func badRequests() async throws {
        try await ServeKit.run(configure: { $0.allowsUnsigned = true }) { harness in
            let source = Base64URL.encode(Data(harness.origin.url("/a.jpg").absoluteString.utf8))
            let badSpec = try await harness.get("/unsafe/png/blur(x)/\(source)")
            #expect(badSpec.status == .badRequest)
            #expect(badSpec.text.hasPrefix("bad processor spec"))
            #expect(badSpec.text.filter { $0 == "\n" }.count == 1)
            let badFormat = try await harness.get("/unsafe/tiff/-/\(source)")
            #expect(badFormat.status == .badRequest)
            #expect(badFormat.text.contains("unknown format"))
            let badSource = try await harness.get("/unsafe/png/-/not*base64")
            #expect(badSource.status == .badRequest)
            let ftpSource = try await harness.get("/unsafe/png/-/\(Base64URL.encode(Data("ftp://127.0.0.1/a.jpg".utf8)))")
            #expect(ftpSource.status == .badRequest)
            // A file is a source only below --local-root, which this server has not.
            let fileSource = try await harness.get("/unsafe/png/-/\(Base64URL.encode(Data("file:///etc/passwd".utf8)))")
            #expect(fileSource.status == .forbidden)
            #expect(fileSource.text.contains("--local-root"), "\(fileSource.text)")
            #expect(harness.origin.requestCount(for: "/a.jpg") == 0)
        }
    }

    @Test("origin failures are 404 and 502; a redirect to a metadata address is refused at that hop")
    func originFailures() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/gone.jpg", .status(404))
            harness.origin.route("/broken.jpg", .status(500))
            harness.origin.route("/moved.jpg", .redirect(to: "http://169.254.169.254/latest"))
            harness.origin.route("/text", .ok(Data("not an image".utf8)))
            let missing = try await harness.get(harness.path("/gone.jpg"))
            #expect(missing.status == .notFound)
            let broken = try await harness.get(harness.path("/broken.jpg"))
            #expect(broken.status == .badGateway)
            #expect(broken.text.contains("500"))
            let moved = try await harness.get(harness.path("/moved.jpg"))
            #expect(moved.status == .forbidden)
            #expect(moved.text.contains("the origin redirected"))
            let text = try await harness.get(harness.path("/text"))
            #expect(text.status == .unprocessableContent)
        }
    }
}
