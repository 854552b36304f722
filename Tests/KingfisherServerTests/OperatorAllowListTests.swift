import Foundation
import Testing
@testable import KingfisherServer

@Suite("Allow-lists as thumbor's and imgproxy's operators write them")
struct OperatorAllowListTests {
    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test("thumbor: a plain string is the whole host name; a string with regex characters matches the whole host")
    func thumborHosts() throws {
        let list = SourceAllowList(rules: [.thumborHost("images.example.com"), .thumborHost(#".+\.cdn\.example\.com"#)],
                                   settings: ["ALLOWED_SOURCES in thumbor.conf"])
        #expect(list.allows(try Self.url("http://images.example.com/a.jpg")))
        #expect(list.allows(try Self.url("https://IMAGES.example.com/a.jpg")))
        #expect(!list.allows(try Self.url("http://images.example.com.evil.net/a.jpg")))
        #expect(!list.allows(try Self.url("http://imagesXexample.com/a.jpg")), "a dot in a plain string is a dot")
        #expect(list.allows(try Self.url("http://eu.cdn.example.com/a.jpg")))
        #expect(!list.allows(try Self.url("http://cdn.example.com/a.jpg")))
        #expect(!list.allows(try Self.url("http://eu.cdn.example.com.evil.net/a.jpg")), "anchored at the end")
    }

    @Test("thumbor: re.compile() matches at the start of the whole URL")
    func thumborURLPatterns() throws {
        let list = SourceAllowList(rules: [.thumborURLPattern(#"https://bucket\.example\.net/public/"#)], settings: ["ALLOWED_SOURCES"])
        #expect(list.allows(try Self.url("https://bucket.example.net/public/a.jpg")))
        #expect(!list.allows(try Self.url("https://bucket.example.net/private/a.jpg")))
        #expect(!list.allows(try Self.url("http://evil.net/?https://bucket.example.net/public/")))
        #expect(SourceRule.thumborURLPattern("(unclosed").validationError != nil)
        #expect(SourceRule.thumborHost("a[").validationError != nil)
        #expect(SourceRule.thumborHost("a.example.com").validationError == nil)
    }

    @Test("imgproxy: URL prefixes in which * matches anything but a slash")
    func imgproxyPatterns() throws {
        let list = SourceAllowList(rules: [.imgproxyPattern("https://*.example.com/"), .imgproxyPattern("http://127.0.0.1:*/img/")],
                                   settings: ["IMGPROXY_ALLOWED_SOURCES"])
        #expect(list.allows(try Self.url("https://cdn.example.com/a.jpg")))
        #expect(!list.allows(try Self.url("https://cdn.example.com.evil.net/a.jpg")), "* stops at a slash, and the / must follow")
        #expect(!list.allows(try Self.url("https://evil.net/x.example.com/a.jpg")))
        #expect(list.allows(try Self.url("http://127.0.0.1:8000/img/a.jpg")))
        #expect(!list.allows(try Self.url("http://127.0.0.1:8000/other/a.jpg")))
        #expect(!list.allows(try Self.url("HTTPS://cdn.example.com/a.jpg")), "compared as written, as imgproxy's regexp does")
        #expect(CompiledSourcePattern.wildcardPrefix("a*b*c", matches: "axxbyyc-rest"))
        #expect(!CompiledSourcePattern.wildcardPrefix("a*c", matches: "ab/c"))
    }

    @Test("a refused source names the setting that would allow it", arguments: [
        (SourceAllowList(rules: [.imgproxyPattern("https://cdn.example.com/")], settings: ["IMGPROXY_ALLOWED_SOURCES"]),
         "IMGPROXY_ALLOWED_SOURCES, or kf serve --allow-host"),
        (SourceAllowList(rules: [.thumborHost("cdn.example.com")], settings: ["ALLOWED_SOURCES in /etc/thumbor.conf"]),
         "ALLOWED_SOURCES in /etc/thumbor.conf, or kf serve --allow-host"),
        (SourceAllowList(["cdn.example.com"]), "kf serve --allow-host"),
    ])
    func refusalNamesTheSetting(list: SourceAllowList, hint: String) async throws {
        try await ServeKit.run(configure: { $0.allowedSources = list }) { harness in
            harness.origin.route("/a.png", .ok(ServeKit.png, contentType: "image/png"))
            let answer = try await harness.get(harness.path("/a.png"))
            #expect(answer.status == .forbidden)
            #expect(answer.text.contains("not in the allow-list (\(hint))"), "\(answer.text)")
        }
    }

    @Test("an imgproxy pattern allows the origin it names, through the server")
    func imgproxyPatternThroughTheServer() async throws {
        try await ServeKit.run(configure: {
            $0.allowedSources = SourceAllowList(rules: [.imgproxyPattern("http://127.0.0.1:*/allowed/")], settings: ["IMGPROXY_ALLOWED_SOURCES"])
        }) { harness in
            harness.origin.route("/allowed/a.png", .ok(ServeKit.png, contentType: "image/png"))
            harness.origin.route("/other/a.png", .ok(ServeKit.png, contentType: "image/png"))
            let allowed = try await harness.get(harness.path("/allowed/a.png"))
            let other = try await harness.get(harness.path("/other/a.png"))
            #expect(allowed.status == .ok, "\(allowed.text)")
            #expect(other.status == .forbidden)
        }
    }
}

@Suite("thumbor.conf reader")
struct ThumborConfFileTests {
    @Test("literals of every kind, comments, continuation lines and imports")
    func literals() throws {
        let file = try ThumborConfFile(contents: """
            # comment
            from thumbor.handlers import ContextHandler
            SECURITY_KEY = "k" 'ey'  # joined
            QUALITY = 85
            MAX_PIXELS = 75e6
            MAX_AGE = 24 * 60 * \\
                60
            RATIO = (1 + 2) * 0.5
            AUTO_WEBP = True
            RESULT_STORAGE = None
            ALLOWED_SOURCES = ('a.example.com', re.compile(r'^https://b\\.example\\.com/'),)
            TEXT = '''multi
            line'''
            HEALTHCHECK_ROUTE = r"/healthcheck/?"
            LOADER = os.environ.get('LOADER', 'x')
            QUALITY = 90
            """)
        let settings = file.settings
        #expect(file.imports.map(\.line) == [2])
        #expect(settings["SECURITY_KEY"]?.value == .string("key"))
        #expect(settings["QUALITY"]?.value == .integer(90), "the last assignment counts")
        #expect(settings["MAX_PIXELS"]?.value == .float(75e6))
        #expect(settings["MAX_AGE"]?.value == .integer(86_400))
        #expect(settings["MAX_AGE"]?.line == 6)
        #expect(settings["RATIO"]?.value == .float(1.5))
        #expect(settings["AUTO_WEBP"]?.value == .bool(true))
        #expect(settings["RESULT_STORAGE"]?.value == PythonValue.none)
        #expect(settings["ALLOWED_SOURCES"]?.value == .tuple([.string("a.example.com"), .pattern(#"^https://b\.example\.com/"#)]))
        #expect(settings["TEXT"]?.value == .string("multi\nline"))
        #expect(settings["HEALTHCHECK_ROUTE"]?.value == .string("/healthcheck/?"))
        #expect(settings["LOADER"]?.value == .other("os.environ.get('LOADER', 'x')"))
        #expect(settings["LOADER"]?.line == 15)
    }

    @Test("what Python would not read, and statements other than assignments, are errors naming the line", arguments: [
        "QUALITY = 'open\n", "ALLOWED_SOURCES = ['a',\n", "if True:\n    QUALITY = 1\n", "def f(): pass\n", "X = )\n",
    ])
    func errors(text: String) {
        #expect(throws: ThumborConfError.self) { try ThumborConfFile(contents: text) }
    }
}
