import Foundation
import Hummingbird
import Kingfisher
import Testing
@testable import KingfisherServer

@Suite("imgproxy grammar")
struct ImgproxyGrammarTests {
    /// 2026-01-01T00:00:00Z, the grammar's clock in these tests.
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    static func grammar(_ configuration: ImgproxyConfiguration? = nil, allowsUnsigned: Bool = true) throws -> ImgproxyGrammar {
        ImgproxyGrammar(configuration: try configuration ?? ImgproxyConfiguration(), allowsUnsigned: allowsUnsigned,
                        now: { now })
    }

    static func parse(_ path: String, _ configuration: ImgproxyConfiguration? = nil) throws -> RenditionRequest {
        try grammar(configuration).request(forRawPath: Substring(path))
    }

    static func geometry(_ request: RenditionRequest) -> ImgproxyGeometry? {
        for case .geometry(let geometry) in request.operations { return geometry.rule as? ImgproxyGeometry }
        return nil
    }

    static func status(_ path: String, _ configuration: ImgproxyConfiguration? = nil, allowsUnsigned: Bool = true)
        -> HTTPResponse.Status? {
        do {
            _ = try grammar(configuration, allowsUnsigned: allowsUnsigned).request(forRawPath: Substring(path))
            return nil
        } catch let error as ImageServerError {
            return error.status
        } catch {
            return .internalServerError
        }
    }

    // MARK: Signatures (published vectors)

    @Test("the docs example: key 'secret', salt 'hello', hex-encoded in the environment")
    func docsVector() throws {
        let configuration = try ImgproxyConfiguration(environment: ["IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656C6C6F"])
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(ImgproxySigner(configuration: configuration).signature(for: path) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        let request = try Self.grammar(configuration, allowsUnsigned: false)
            .request(forRawPath: "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + path)
        #expect(request.source.absoluteString == "http://example.com/images/curiosity.jpg")
        #expect(request.output == .fixed(.PNG))
        #expect(request.headers.fileName == "curiosity")
        let geometry = try #require(Self.geometry(request))
        #expect(geometry.resizingType == .fill && geometry.width == 300 && geometry.height == 400 && !geometry.enlarge)
        #expect(geometry.gravity == ImgproxyGravity(.smart))
        #expect(Self.status("/pKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + path, configuration) == .forbidden)
        #expect(Self.status("/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8" + path + "x", configuration) == .forbidden)
    }

    @Test("examples/signature.py, full and truncated to 8 bytes")
    func exampleVectors() throws {
        let environment = [
            "IMGPROXY_KEY": "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
            "IMGPROXY_SALT": "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5",
        ]
        let path = "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"
        let full = try ImgproxyConfiguration(environment: environment)
        let request = try Self.parse("/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + path, full)
        #expect(request.source.absoluteString == "http://img.example.com/pretty/image.jpg")
        #expect(request.output == .source)
        var truncatedEnvironment = environment
        truncatedEnvironment["IMGPROXY_SIGNATURE_SIZE"] = "8"
        let truncated = try ImgproxyConfiguration(environment: truncatedEnvironment)
        #expect(ImgproxySigner(configuration: truncated).signature(for: path) == "m3k5QADfcKM")
        #expect(Self.status("/m3k5QADfcKM" + path, truncated) == nil)
        #expect(Self.status("/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + path, truncated) == .forbidden)
        #expect(Self.status("/m3k5QADfcKM" + path, full) == .forbidden)
    }

    @Test("klen/imgproxy's test vector, with the right pair second of two, and trusted signatures")
    func pairsAndTrusted() throws {
        let configuration = try ImgproxyConfiguration(environment: [
            "IMGPROXY_KEY": "00ff,aa396160c50ea766910eab53", "IMGPROXY_SALT": "11ee,b3fb8f215827bda5d0e7313d",
            "IMGPROXY_TRUSTED_SIGNATURES": "letmein",
        ])
        let path = "/g:ce/rs:auto:0:0:0/aHR0cHM6Ly9waWNzdW0ucGhvdG9zLzEwMDA"
        let request = try Self.parse("/Da25ef1zWhx4P9hhPWGdFRU8_dYcGvloGHvEZ1c3_0o" + path, configuration)
        #expect(request.source.absoluteString == "https://picsum.photos/1000")
        #expect(Self.geometry(request)?.resizingType == .auto)
        #expect(Self.status("/letmein" + path, configuration) == nil)
        #expect(Self.status("/Da25ef1zWhx4P9hhPWGdFRU8_dYcGvloGHvEZ1c3_0o=" + path, configuration) == .forbidden)
        #expect(Self.status("/unsafe" + path, configuration) == .forbidden)
    }

    @Test("unsigned: any segment without ':' when allowed; 403 when the server needs signatures")
    func unsigned() {
        #expect(Self.status("/insecure/w:10/plain/http://example.com/a.jpg") == nil)
        #expect(Self.status("/_/w:10/plain/http://example.com/a.jpg") == nil)
        #expect(Self.status("/w:10/plain/http://example.com/a.jpg") == .forbidden)
        #expect(Self.status("/insecure/w:10/plain/http://example.com/a.jpg", allowsUnsigned: false) == .forbidden)
    }

    @Test("RedenormalizePath: %3A in options and scheme:/ in plain sources are repaired before signing")
    func redenormalize() throws {
        let configuration = try ImgproxyConfiguration(keys: [Array("secret".utf8)], salts: [Array("hello".utf8)])
        let signer = ImgproxySigner(configuration: configuration)
        let canonical = "/rs:fill:100:100/plain/https://example.com/a.jpg"
        let signature = try #require(signer.signature(for: canonical))
        let request = try Self.parse("/\(signature)/rs%3Afill%3A100%3A100/plain/https:/example.com/a.jpg", configuration)
        #expect(request.source.absoluteString == "https://example.com/a.jpg")
        #expect(Self.geometry(request)?.resizingType == .fill)
        // A signature made with another key is refused with the settings to check.
        let other = try ImgproxyConfiguration(keys: [Array("other".utf8)], salts: [Array("hello".utf8)])
        let foreign = try #require(ImgproxySigner(configuration: other).signature(for: canonical))
        do {
            _ = try Self.parse("/\(foreign)\(canonical)", configuration)
            Issue.record("a foreign signature was accepted")
        } catch let error as ImageServerError {
            #expect(error.status == .forbidden)
            #expect(error.reason.hasPrefix("Invalid signature: check") && error.reason.contains("IMGPROXY_KEY"), "\(error.reason)")
        }
        #expect(ImgproxyPath.redenormalize("plain/local:/a/b.png") == "plain/local:///a/b.png")
        #expect(ImgproxyPath.redenormalize("w:1/b64%3Apart") == "w:1/b64:part")
        #expect(ImgproxyPath.redenormalize("plain/http://a.com/x") == "plain/http://a.com/x")
    }

    // MARK: Parse table

    struct ParseCase: CustomStringConvertible, Sendable {
        let path: String
        let check: @Sendable (RenditionRequest) -> Bool
        var description: String { path }
    }

    static let b64 = "aHR0cDovL2V4YW1wbGUuY29tL2EuanBn"  // http://example.com/a.jpg

    static let accepted: [ParseCase] = [
        .init(path: "/_/plain/http://example.com/a.jpg") { $0.source.absoluteString == "http://example.com/a.jpg" && $0.output == .source && $0.quality == 0.8 },
        .init(path: "/_/plain/http://example.com/a.jpg@webp") { $0.output == .fixed(.WebP) && $0.quality == 0.79 },
        .init(path: "/_/plain/http%3A%2F%2Fexample.com%2Fa%20b.jpg") { $0.source.host == "example.com" && $0.source.path == "/a b.jpg" },
        .init(path: "/_/plain/http://example.com/a%40b.jpg@png") { $0.source.absoluteString == "http://example.com/a@b.jpg" && $0.output == .fixed(.PNG) },
        .init(path: "/_/\(b64).jpg") {
            $0.source.absoluteString == "http://example.com/a.jpg" && $0.output == .fixed(.JPEG)
                && $0.operations.last == .filter(.background(.white))
        },
        .init(path: "/_/aHR0cDovL2V4YW1w/bGUuY29tL2EuanBn") { $0.source.absoluteString == "http://example.com/a.jpg" },
        .init(path: "/_/aHR0cDovL2V4YW1wbGUuY29tL2EuanBnPw==.png") { $0.source.absoluteString == "http://example.com/a.jpg?" && $0.output == .fixed(.PNG) },
        .init(path: "/_/rs:fill:300:200:1:1:so/\(b64)") {
            guard let g = geometry($0) else { return false }
            return g.resizingType == .fill && g.width == 300 && g.height == 200 && g.enlarge && g.extend && g.extendGravity == ImgproxyGravity(.south)
        },
        .init(path: "/_/rs:fit::300/\(b64)") { geometry($0)?.width == 0 && geometry($0)?.height == 300 },
        .init(path: "/_/s:10:20/rt:force/w:30/\(b64)") { geometry($0)?.width == 30 && geometry($0)?.height == 20 && geometry($0)?.resizingType == .force },
        .init(path: "/_/resize:fill-down:1:2/resizing_type:auto/height:5/width:6/\(b64)") { geometry($0)?.resizingType == .auto && geometry($0)?.width == 6 && geometry($0)?.height == 5 },
        .init(path: "/_/mw:10/mh:20/z:1.5/dpr:2/el:t/\(b64)") {
            guard let g = geometry($0) else { return false }
            return g.minWidth == 10 && g.minHeight == 20 && g.zoomWidth == 1.5 && g.zoomHeight == 1.5 && g.dpr == 2 && g.enlarge
        },
        .init(path: "/_/z:2:3/el:nonsense/\(b64)") { geometry($0)?.zoomHeight == 3 && geometry($0)?.enlarge == false },
        .init(path: "/_/g:noea:5:0.25/\(b64)") { geometry($0)?.gravity == ImgproxyGravity(.northEast, x: 5, y: 0.25) },
        .init(path: "/_/g:fp:0.3:0.7/\(b64)") { geometry($0)?.gravity == ImgproxyGravity(.focusPoint, x: 0.3, y: 0.7) },
        .init(path: "/_/g:no:10:20/g:so::5/\(b64)") { geometry($0)?.gravity == ImgproxyGravity(.south, x: 10, y: 5) },
        .init(path: "/_/g:no:10:20/g:sm/g:ce/\(b64)") { geometry($0)?.gravity == ImgproxyGravity(.center) },
        .init(path: "/_/c:0.5:100:sowe:1:2/\(b64)") {
            geometry($0)?.cropWidth == 0.5 && geometry($0)?.cropHeight == 100 && geometry($0)?.cropGravity == ImgproxyGravity(.southWest, x: 1, y: 2)
        },
        .init(path: "/_/exar:1:we/\(b64)") { geometry($0)?.extendAspectRatio == true && geometry($0)?.extendAspectRatioGravity == ImgproxyGravity(.west) },
        .init(path: "/_/pd:1:2:3:4/\(b64)") {
            guard let g = geometry($0) else { return false }
            return (g.paddingTop, g.paddingRight, g.paddingBottom, g.paddingLeft) == (1, 2, 3, 4)
        },
        .init(path: "/_/pd:5/\(b64)") { geometry($0).map { ($0.paddingTop, $0.paddingRight, $0.paddingBottom, $0.paddingLeft) == (5, 5, 5, 5) } ?? false },
        .init(path: "/_/rot:270/fl:1:1/\(b64)") { geometry($0).map { $0.rotate == 270 && $0.flipHorizontal && $0.flipVertical } ?? false },
        .init(path: "/_/bg:255:0:10/bl:2.5/sh:0.7/\(b64)") {
            let red = RenditionColor(red: 255, green: 0, blue: 10)
            return $0.operations == [.geometry(RenditionGeometry(geometry($0) ?? ImgproxyGeometry())), .filter(.blur(sigma: 2.5)),
                                     .filter(.sharpen(sigma: 0.7)), .filter(.background(red))] && geometry($0)?.background == red
        },
        .init(path: "/_/bg:abc/bg:/\(b64)") { geometry($0)?.background == nil && $0.operations.count == 1 },
        .init(path: "/_/background:0a0B0c/\(b64)") { geometry($0)?.background == RenditionColor(red: 10, green: 11, blue: 12) },
        .init(path: "/_/q:55/\(b64).webp") { $0.quality == 0.55 },
        .init(path: "/_/q:0/\(b64).avif") { $0.quality == 0.63 && $0.output == .fixed(.AVIF) },
        .init(path: "/_/fq:webp:40:jpeg:90/f:webp/\(b64)") { $0.quality == 0.4 && $0.output == .fixed(.WebP) },
        .init(path: "/_/format:png/\(b64).jpg") { $0.output == .fixed(.JPEG) },
        .init(path: "/_/ext:jxl/\(b64)") { $0.output == .fixed(.JXL) && $0.quality == 0.77 },
        .init(path: "/_/mb:10000/\(b64)") { $0.maxBytes == 10000 },
        .init(path: "/_/mb:0/\(b64)") { $0.maxBytes == nil },
        .init(path: "/_/exp:1767229200/\(b64)") { $0.headers.expires == Date(timeIntervalSince1970: 1_767_229_200) },
        .init(path: "/_/fn:report/att:1/\(b64)") { $0.headers.fileName == "report" && $0.headers.attachment },
        .init(path: "/_/fn:cmVwb3J0IDIwMjY:1/\(b64)") { $0.headers.fileName == "report 2026" },
        .init(path: "/_/plain/http://example.com/") { $0.headers.fileName == "image" },
        .init(path: "/_/ar:0/sm:1/scp:true/kcr:f/ph:0/eth:1/skp:jpg:png/\(b64)") { geometry($0) == ImgproxyGeometry() },
        .init(path: "/_/\(b64)") {
            $0.headers.maxAge == 31_536_000 && $0.headers.fileName == "a" && !$0.headers.attachment
                && $0.headers.extra == ["Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"]
        },
    ]

    @Test("accepted URL forms", arguments: accepted)
    func acceptedForms(_ testCase: ParseCase) throws {
        let request = try Self.parse(testCase.path)
        #expect(testCase.check(request), "\(request)")
    }

    @Test("refused URL forms and their statuses", arguments: [
        ("/_/foo:1/\(b64)", 404), ("/_/w:abc/\(b64)", 404), ("/_/w:-1/\(b64)", 404), ("/_/rs:stretch/\(b64)", 404),
        ("/_/rs:fit:1:2:3:4:5:6:7:8/\(b64)", 404), ("/_/q:101/\(b64)", 404), ("/_/rot:45/\(b64)", 404),
        ("/_/g:xx/\(b64)", 404), ("/_/g:sm:1/\(b64)", 404), ("/_/g:fp:0.5/\(b64)", 404), ("/_/g:fp:2:0/\(b64)", 404),
        ("/_/ex:1:sm/\(b64)", 404), ("/_/bg:zz/\(b64)", 404), ("/_/bg:1:2/\(b64)", 404), ("/_/bg:256:0:0/\(b64)", 404),
        ("/_/dpr:0/\(b64)", 404), ("/_/z:-1/\(b64)", 404), ("/_/dpr:inf/\(b64)", 404), ("/_/bl:-1/\(b64)", 404),
        ("/_/pd:1:2:3:4:5/\(b64)", 404), ("/_/fq:webp/\(b64)", 404), ("/_/f:xyz/\(b64)", 404), ("/_/\(b64).bogus", 404),
        ("/_/f:heic/\(b64)", 422), ("/_/\(b64).tiff", 422), ("/_/exp:1700000000/\(b64)", 404), ("/_/exp:soon/\(b64)", 404),
        ("/_/fn:!!!:1/\(b64)", 404), ("/_/pr:nope/\(b64)", 404), ("/_/t:10/\(b64)", 404), ("/_/wm:2/\(b64)", 404),
        ("/_/wm:0.5:xx/\(b64)", 404), ("/_/wm:0.5:ce:0:0:0/\(b64)", 404),
        ("/_/pix:5/\(b64)", 404), ("/_/mrd:100/\(b64)", 403), ("/_/msr:10/\(b64)", 403),
        ("/_/fill/300/400/\(b64)", 404), ("/_/rs:fill:1:1", 404), ("/_/rs:fill:1:1/plain/", 404),
        ("/_/plain/http://example.com/a@b@png", 404), ("/_/\(b64).png.jpg", 404), ("/_/!!notbase64", 404),
        ("/_/plain/s3://bucket/key.jpg", 404), ("/_/czM6Ly9idWNrZXQva2V5LmpwZw", 404), ("/_/plain/ftp://example.com/a.jpg", 404),
        ("/_/plain/http://", 404), ("/_/plain/http%ZZ", 404), ("/", 404), ("//w:1/\(b64)", 404), ("/_", 404), ("/_/", 404),
    ])
    func refusedForms(path: String, status: Int) {
        #expect(Self.status(path)?.code == status, "\(path)")
    }

    @Test("s3:// sources without IMGPROXY_USE_S3 are refused with a reason naming the variable")
    func storageReason() {
        do {
            _ = try Self.parse("/_/plain/s3://bucket/key.jpg")
            Issue.record("expected a refusal")
        } catch let error as ImageServerError {
            #expect(error.reason.contains("s3:// sources need IMGPROXY_USE_S3=true"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("cachebuster changes nothing but the URL")
    func cachebuster() throws {
        #expect(try Self.parse("/_/cb:12345/w:10/\(Self.b64)") == Self.parse("/_/w:10/\(Self.b64)"))
    }

    // MARK: Presets, base URL, format negotiation

    @Test("presets: default first, URL options after it, pr: nested and recursion skipped")
    func presets() throws {
        let configuration = try ImgproxyConfiguration(environment: [
            "IMGPROXY_PRESETS": "default=q:70/rs:fit:500:500,thumb=rs:fill:100:100/g:sm,loop=pr:back/w:7,back=pr:loop/h:8",
        ])
        let plain = try Self.parse("/_/\(Self.b64)", configuration)
        #expect(plain.quality == 0.7 && Self.geometry(plain)?.width == 500)
        let thumb = try Self.parse("/_/pr:thumb/\(Self.b64)", configuration)
        #expect(Self.geometry(thumb)?.resizingType == .fill && Self.geometry(thumb)?.width == 100)
        #expect(Self.geometry(thumb)?.gravity == ImgproxyGravity(.smart) && thumb.quality == 0.7)
        let overridden = try Self.parse("/_/pr:thumb/q:90/w:50/\(Self.b64)", configuration)
        #expect(overridden.quality == 0.9 && Self.geometry(overridden)?.width == 50)
        let looped = try Self.parse("/_/preset:loop/\(Self.b64)", configuration)
        #expect(Self.geometry(looped)?.width == 7 && Self.geometry(looped)?.height == 8)
    }

    @Test("IMGPROXY_ONLY_PRESETS: the first segment names presets")
    func onlyPresets() throws {
        let configuration = try ImgproxyConfiguration(environment: [
            "IMGPROXY_PRESETS": "small=w:100,webp=f:webp", "IMGPROXY_ONLY_PRESETS": "true",
        ])
        let request = try Self.parse("/_/small:webp/plain/http://example.com/a.jpg", configuration)
        #expect(Self.geometry(request)?.width == 100 && request.output == .fixed(.WebP))
        #expect(Self.status("/_/w:100/plain/http://example.com/a.jpg", configuration) == .notFound)
    }

    @Test("IMGPROXY_BASE_URL prefixes sources that lack it")
    func baseURL() throws {
        let configuration = try ImgproxyConfiguration(baseURL: "https://cdn.example.com/media/")
        #expect(try Self.parse("/_/plain/2021/a.jpg", configuration).source.absoluteString == "https://cdn.example.com/media/2021/a.jpg")
        #expect(try Self.parse("/_/plain/https://cdn.example.com/media/b.jpg", configuration).source.absoluteString
                == "https://cdn.example.com/media/b.jpg")
        // base64 of "x/y.png"
        #expect(try Self.parse("/_/eC95LnBuZw", configuration).source.absoluteString == "https://cdn.example.com/media/x/y.png")
    }

    @Test("AUTO_* negotiates only without an extension; ENFORCE_* always")
    func negotiation() throws {
        let auto = try ImgproxyConfiguration(autoWebP: true)
        #expect(try Self.parse("/_/\(Self.b64)", auto).output == .negotiated)
        #expect(try Self.parse("/_/\(Self.b64).png", auto).output == .fixed(.PNG))
        let enforce = try ImgproxyConfiguration(enforceAVIF: true)
        #expect(try Self.parse("/_/\(Self.b64).png", enforce).output == .negotiated)
        #expect(try Self.parse("/_/\(Self.b64)", enforce).quality == 0.8)
    }

    @Test("refusals name the problem")
    func reasons() {
        for (path, fragment) in [("/_/foo:1/\(Self.b64)", "unknown processing option foo"),
                                 ("/_/exp:1700000000/\(Self.b64)", "expired URL"),
                                 ("/_/t:1/\(Self.b64)", "does not support the imgproxy option t")] {
            do {
                _ = try Self.parse(path)
                Issue.record("expected a refusal for \(path)")
            } catch let error as ImageServerError {
                #expect(error.reason.contains(fragment), "\(error.reason)")
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    @Test("the grammar's name and refused-source status")
    func identity() throws {
        let grammar = try Self.grammar()
        #expect(grammar.name == "imgproxy")
        #expect(grammar.refusedSourceStatus == .notFound)
    }
}
