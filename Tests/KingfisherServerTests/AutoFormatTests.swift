import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Kingfisher
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// The `Accept` headers browsers and tools send for an `<img>` request, and what `auto` answers.
///
/// Sources: MDN's "List of default Accept values" (Firefox 47–63, 65–91 and 92 and later, Safari
/// since macOS Big Sur, Safari before it, Chrome before AVIF); Chromium's and WebKit's values as browser-emulation tables
/// and captured requests list them (Chrome/Edge 120+; Safari 17 with a `Version/17.6 Safari` user
/// agent); Firefox 138–146 as captured with those user agents; curl 7 and 8 send `*/*`.
enum BrowserAccept {
    struct Row: Sendable, CustomStringConvertible {
        let client: String
        let accept: String?
        let negotiated: [ImageFormat]
        var description: String { client }
    }

    static let rows: [Row] = [
        Row(client: "Chrome/Edge 120+", accept: "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
            negotiated: [.AVIF, .WebP]),
        Row(client: "Firefox 92–127", accept: "image/avif,image/webp,*/*", negotiated: [.AVIF, .WebP]),
        Row(client: "Firefox 138–146", accept: "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
            negotiated: [.AVIF, .WebP]),
        Row(client: "Safari 17",
            accept: "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
            negotiated: [.AVIF, .WebP]),
        Row(client: "Safari from macOS Big Sur until it named AVIF",
            accept: "image/webp,image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5", negotiated: [.WebP]),
        Row(client: "Safari before Big Sur", accept: "image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5",
            negotiated: []),
        Row(client: "Chrome 65–84", accept: "image/webp,image/apng,image/*,*/*;q=0.8", negotiated: [.WebP]),
        Row(client: "Firefox 65–91", accept: "image/webp,*/*", negotiated: [.WebP]),
        Row(client: "Firefox 47–63", accept: "*/*", negotiated: []),
        Row(client: "curl", accept: "*/*", negotiated: []),
        Row(client: "no Accept header", accept: nil, negotiated: []),
    ]
}

@Suite("kf serve auto format")
struct AutoFormatTests {
    @Test("each browser's Accept header negotiates the expected formats", arguments: BrowserAccept.rows)
    func browsers(row: BrowserAccept.Row) {
        #expect(OutputFormat.auto.rendering(accept: row.accept) == .negotiated(row.negotiated))
    }

    @Test("Accept parsing: q-values, q=0, wildcards, case, spaces and bad values")
    func acceptParsing() {
        let cases: [(String, [ImageFormat])] = [
            ("image/*", []),
            ("*/*;q=1, image/*", []),
            ("image/avif;q=0, image/webp", [.WebP]),
            ("image/webp;q=0,image/avif;q=0", []),
            ("image/avif;q=0.0, image/webp;q=0.000", []),
            ("image/avif;q=0.5,image/webp", [.WebP, .AVIF]),
            ("image/webp;q=0.9, image/avif;q=0.9", [.AVIF, .WebP]),
            ("IMAGE/AVIF ; Q=0.8 , Image/WebP;q=0.7", [.AVIF, .WebP]),
            ("image/avif;q=2, image/webp", [.WebP]),
            ("image/avif;q=0.1234, image/webp;q=abc", []),
            ("image/avif;q=1.000", [.AVIF]),
            ("image/avif;q=1.5", []),
            ("image/avif; level=1; q=0.3", [.AVIF]),
            ("image/avif-sequence, image/webpx, text/image/avif", []),
            ("image/avif,image/avif;q=0", [.AVIF]),
            (",,;q=1, image/webp,", [.WebP]),
            ("", []),
        ]
        for (header, expected) in cases {
            #expect(OutputFormat.negotiated(AcceptHeader(header)) == expected, "\(header)")
        }
        #expect(AcceptHeader("image/avif;q=0.25").quality(ofExactly: "image/avif") == 0.25)
        #expect(AcceptHeader("image/*").quality(ofExactly: "image/avif") == nil)
        #expect(!AcceptHeader("image/webp;q=0").namesAcceptably("image/webp"))
    }

    @Test("renderings have distinct cache-key tokens")
    func tokens() {
        let renderings: [OutputFormat.Rendering] = [
            .fixed(.WebP), .fixed(.AVIF), .fixed(.JXL), .negotiated([.AVIF, .WebP]), .negotiated([.WebP]),
            .negotiated([.WebP, .AVIF]), .negotiated([.AVIF]), .fallback,
        ]
        #expect(Set(renderings.map(\.token)).count == renderings.count)
        #expect(OutputFormat.Rendering.fallback.token == "fallback")
        #expect(ImageServerConfiguration(signingKey: nil, allowedSources: SourceAllowList([])).avifSpeed == 8)
        #expect(ImageServerConfiguration(signingKey: nil, allowedSources: SourceAllowList([]), avifSpeed: 99).avifSpeed == 10)
    }

    @Test("auto answers WebP to an older Safari, JPEG to curl, PNG for alpha, each with Vary: Accept")
    func autoWithoutAVIF() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            harness.origin.route("/b.png", .ok(ServeKit.png))
            let safari = try await harness.get(harness.path("/a.jpg", format: .auto), headers: [.accept: BrowserAccept.rows[4].accept ?? ""])
            #expect(safari.status == .ok && safari.headers[.contentType] == "image/webp")
            #expect(safari.headers[.vary] == "Accept")
            let curl = try await harness.get(harness.path("/a.jpg", format: .auto), headers: [.accept: "*/*"])
            #expect(curl.headers[.contentType] == "image/jpeg" && curl.headers[.vary] == "Accept")
            #expect(curl.headers[.eTag] != safari.headers[.eTag])
            let alpha = try await harness.get(harness.path("/b.png", format: .auto), headers: [.accept: "image/*"])
            #expect(alpha.headers[.contentType] == "image/png")
            #expect(try KFCrossPlatformImage(data: alpha.data).isOpaque == false)
        }
    }

    @Test("an animation under auto stays animated: WebP when named, GIF otherwise")
    func autoAnimation() async throws {
        // Three opaque frames of distinct greys.
        let frames = (0..<3).compactMap { index in
            let grey = UInt8(60 + index * 60)
            return ImageFrame(width: 8, height: 8, pixels: (0..<64).flatMap { _ in [grey, grey, grey, 255] }, duration: 0.1)
        }
        let gif = try #require(KFCrossPlatformImage(frames: frames)).encoded(as: .GIF)
        try await ServeKit.run { harness in
            harness.origin.route("/anim.gif", .ok(gif))
            let path = harness.path("/anim.gif", format: .auto)
            let webp = try await harness.get(path, headers: [.accept: "image/webp,*/*"])
            #expect(webp.headers[.contentType] == "image/webp")
            #expect(try ImageHeader(data: webp.data).frameCount == 3)
            let plain = try await harness.get(path, headers: [.accept: "*/*"])
            #expect(plain.headers[.contentType] == "image/gif")
            #expect(try ImageHeader(data: plain.data).frameCount == 3)
            // Chrome names AVIF first: an AVIF sequence if the encoder keeps the frames, else WebP.
            let chrome = try await harness.get(path, headers: [.accept: BrowserAccept.rows[0].accept ?? ""])
            #expect(["image/avif", "image/webp"].contains(chrome.headers[.contentType] ?? ""))
            #expect(try ImageHeader(data: chrome.data).frameCount == 3)
        }
    }

    @Test("auto answers AVIF to browsers that name it, each rendering cached under its own key")
    func autoAVIF() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let path = harness.path("/a.jpg", spec: "downsample(32x32)", format: .auto)
            var tags: Set<String> = []
            for row in BrowserAccept.rows {
                let response = try await harness.get(path, headers: row.accept.map { [.accept: $0] } ?? [:])
                let expected = row.negotiated.first?.mimeType ?? "image/jpeg"
                #expect(response.status == .ok && response.headers[.contentType] == expected, "\(row.client)")
                #expect(response.headers[.vary] == "Accept")
                #expect(ImageFormat(data: response.data).mimeType == expected, "\(row.client)")
                let image = try KFCrossPlatformImage(data: response.data)
                #expect(image.pixelWidth == 32 && image.pixelHeight == 24, "\(row.client)")
                if let tag = response.headers[.eTag] { tags.insert(tag) }
            }
            // Three renderings: AVIF-or-WebP, WebP only, and the fallback; the source fetched for
            // the first two (the second keeps the original) and the third made from the kept copy.
            #expect(tags.count == 3)
            #expect(harness.origin.requestCount(for: "/a.jpg") == 2)
        }
    }

    @Test("the avif and jxl formats answer in those formats", arguments: [OutputFormat.avif, .jxl])
    func fixedModernFormats(format: OutputFormat) async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let response = try await harness.get(harness.path("/a.jpg", format: format))
            let expected: ImageFormat = format == .avif ? .AVIF : .JXL
            #expect(response.status == .ok && response.headers[.contentType] == expected.mimeType, "\(response.text.prefix(200))")
            #expect(response.headers[.vary] == nil)
            let image = try KFCrossPlatformImage(data: response.data)
            #expect(image.pixelWidth == 64 && image.pixelHeight == 48)
        }
    }
}
