import Foundation
import Kingfisher
import Testing
@testable import KingfisherServer

/// thumbor's URL grammar: signatures, the positional options, image URIs and filters.
@Suite struct ThumborGrammarTests {
    /// A path after `/unsafe/`, the source it names and a summary of everything else it asks for.
    struct ParseCase: Sendable, CustomStringConvertible {
        let path: String, source: String, summary: String
        init(_ path: String, _ source: String, _ summary: String) {
            (self.path, self.source, self.summary) = (path, source, summary)
        }
        var description: String { path }
    }

    static let image = "img.example.com/a.jpg"
    static let source = "http://img.example.com/a.jpg"

    /// Image URIs normalised as thumbor 7.8.0's `http_loader._normalize_url` normalises them (checked there).
    static let imageCases: [ParseCase] = [
        .init("my.server.com/some/path/to/image.jpg", "http://my.server.com/some/path/to/image.jpg", ""),
        .init("https://img.example.com/a.jpg", "https://img.example.com/a.jpg", ""),
        .init("https:/img.example.com/a.jpg", "https://img.example.com/a.jpg", ""),
        .init("http:/img.example.com/a.jpg", "http://img.example.com/a.jpg", ""),
        .init("https%3A%2F%2Fimg.example.com%2Fa.jpg", "https://img.example.com/a.jpg", ""),
        .init("img.example.com/a%20b.jpg", "http://img.example.com/a%20b.jpg", ""),
        .init("img.example.com/a.jpg%3Fw%3D1", "http://img.example.com/a.jpg?w=1", ""),
        .init("img.example.com/caf%C3%A9.jpg", "http://img.example.com/caf%C3%A9.jpg", ""),
        .init("img.example.com/a%2520b.jpg", "http://img.example.com/a%20b.jpg", ""),
        .init("img.example.com/a[1]|b^.jpg", "http://img.example.com/a%5B1%5D%7Cb%5E.jpg", ""),
        .init("img.example.com/a~b(c)!d*e.jpg", "http://img.example.com/a~b(c)!d*e.jpg", ""),
        .init("img.example.com:8080/a.jpg", "http://img.example.com:8080/a.jpg", ""),
        .init("fit-in", "http://fit-in", ""),
        .init("smart/300x200/\(image)", "http://300x200/img.example.com/a.jpg", "smart=true"),
        .init("filters:fill(white)/img.example.com/a(1)/b.jpg", "http://img.example.com/a(1)/b.jpg", "post=fill(#ffffffff,false)"),
    ]

    /// Every option alone and combined, and the filters mapped, skipped or refused.
    static let optionCases: [ParseCase] = [
        .init("trim/\(image)", source, "trim(top-left,0) trim=trim"),
        .init("trim:bottom-right:10/\(image)", source, "trim(bottom-right,10) trim=trim:bottom-right:10"),
        .init("trim:top-left:25/\(image)", source, "trim(top-left,25) trim=trim:top-left:25"),
        // thumbor reads the part after `trim:` as the corner: anything but top-left is bottom-right.
        .init("trim:50/\(image)", source, "trim(bottom-right,0) trim=trim:50"),
        .init("10x20:30x40/\(image)", source, "crop=10x20:30x40"),
        .init("fit-in/300x200/\(image)", source, "size=300x200 fit=fit-in"),
        .init("full-fit-in/300x200/\(image)", source, "size=300x200 fit=full-fit-in"),
        .init("adaptive-fit-in/300x200/\(image)", source, "size=300x200 fit=adaptive-fit-in"),
        .init("adaptive-full-fit-in/300x200/\(image)", source, "size=300x200 fit=adaptive-full-fit-in"),
        .init("-300x-200/\(image)", source, "size=300x200 flip=hv"),
        .init("-0x0/\(image)", source, "flip=h"),
        .init("x/\(image)", source, ""),
        .init("300x/\(image)", source, "size=300x0"),
        .init("x200/\(image)", source, "size=0x200"),
        .init("origx100/\(image)", source, "size=origx100"),
        .init("right/top/\(image)", source, "align=right,top"),
        .init("bottom/\(image)", source, "align=center,bottom"),
        .init("smart/\(image)", source, "smart=true"),
        .init("trim/10x20:30x40/adaptive-full-fit-in/-300x-200/left/top/smart/filters:quality(80):format(webp)/\(image)",
              source, "trim(top-left,0) size=300x200 flip=hv fit=adaptive-full-fit-in trim=trim crop=10x20:30x40 align=left,top smart=true "
                  + "out=webp"),
        .init("filters:quality(80)/\(image)", source, ""),
        .init("filters:quality(81)/\(image)", source, "q=0.81"),
        .init("filters:quality( 150 )/\(image)", source, "q=1.0"),
        .init("filters:format(JPG)/\(image)", source, "out=jpeg"),
        .init("filters:format('png')/\(image)", source, "out=png"),
        .init("filters:format(heic)/\(image)", source, "q=0.75"),
        .init("filters:format(heif)/\(image)", source, "q=0.75"),
        .init("filters:quality(90):format(HEIC)/\(image)", source, "q=0.9"),
        .init("filters:format(heic):format(png)/\(image)", source, "out=png"),
        .init("filters:format(jxl)/\(image)", source, "out=jxl"),
        .init("filters:format(avif)/\(image)", source, "out=avif"),
        .init("filters:format(webp):format(bmp)/\(image)", source, ""),
        .init("filters:format(webp):format('png','png')/\(image)", source, ""),
        .init("filters:cb(2700061000):mode_rgb():quality(70)/\(image)", source, "q=0.7"),
        .init("filters:quality(abc):quality(80,1):blur(0):rotate(45):rotate(360):fill(not-a-colour):fill(zzz)/\(image)", source, ""),
        .init("filters:grayscale(1):no_upscale(x):strip_icc():strip_exif()/\(image)", source, ""),
        .init("filters:no_upscale():upscale():stretch()/\(image)", source, "no_upscale=true stretch=true post=upscale()"),
        .init("filters:max_bytes(40000):max_age(3600)/\(image)", source, "mb=40000 age=3600"),
        .init("filters:max_bytes(0)/\(image)", source, ""),
        .init("fit-in/300x200/filters:fill(fff)/\(image)", source, "size=300x200 fit=fit-in post=fill(#ffffffff,false)"),
        .init("filters:fill(ff000080):fill(Navy)/\(image)", source, "post=fill(#ff000080,false):fill(#000080ff,false)"),
        .init("filters:fill(transparent,true)/\(image)", source, "post=fill(#00000000,true)"),
        .init("filters:fill(auto):fill(blur,False)/\(image)", source,
              "post=fill(average,false):fill(blurred(\(ThumborGrammar.blurSigma(radius: 50, sigma: 0))),false)"),
        .init("filters:watermark(wm.example.com/logo.png,10,-20,30)/\(image)", source,
              "watermark(http://wm.example.com/logo.png,0.7,start(10),end(20),original,subtract)"),
        .init("filters:watermark(https://wm.example.com/l.png,center,repeat,0,50,none)/\(image)", source,
              "watermark(https://wm.example.com/l.png,1.0,center(0),spread,fit(0.5,-),subtract)"),
        .init("filters:watermark('http://wm.example.com/l.png',-10p,5p,100,none,20)/\(image)", source,
              "watermark(http://wm.example.com/l.png,0.0,end(0.1f),start(0.05f),fit(-,0.2),subtract)"),
        .init("filters:watermark(wm.example.com/l.png,left,0,10):watermark(wm.example.com/l.png,0,0)/\(image)", source, ""),
        .init("filters:background_color(red)/\(image)", source, "background(#ff0000ff)"),
        .init("filters:blur(5):blur(5,2):blur(300)/\(image)", source, "blur(2.92) blur(1.95) blur(85.44)"),
        .init("filters:rotate(90):rotate(-90)/\(image)", source, "post=rotate(90):rotate(-90)"),
        .init("filters:round_corner(20%7C40,255,255,255):round_corner(5,0,0,0,1)/\(image)", source,
              "roundCorner(20,40,#ffffffff) roundCorner(5,5,#00000000)"),
        .init("filters:brightness(20):contrast(-10):brightness(200)/\(image)", source, "brightness(20) contrast(-10) brightness(100)"),
        .init("filters:sharpen(1.5,0.5,true):sharpen(2,1)/\(image)", source, "sharpen(0.5)"),
        .init("filters:focal(10x20:110x220):focal(5x5:5x9)/\(image)", source, "focal=10x20:110x220"),
        .init("filters:proportion(0.5):proportion(2)/\(image)", source, "post=proportion(0.5)"),
        .init("filters:grayscale()%3Aquality(90)/\(image)", source, "grayscale q=0.9"),
    ]

    @Test(arguments: imageCases + optionCases)
    func parses(_ testCase: ParseCase) throws {
        let request = try ThumborGrammar(securityKey: nil, allowsUnsafe: true).request(forRawPath: "/unsafe/" + testCase.path[...])
        #expect(request.source.absoluteString == testCase.source)
        #expect(Self.summary(request) == testCase.summary)
    }

    @Test func publishedSignatureVectors() throws {
        let grammar = ThumborGrammar(securityKey: Data("my-security-key".utf8), allowsUnsafe: false)
        #expect(grammar.signature(of: "300x200/my.server.com/some/path/to/image.jpg") == "8ammJH8D-7tXy6kU3lTvoXlhu4o=")
        let second = "10x10:200x200/300x200/filters:brightness(20):contrast(10)/my.server.com/some/path/to/image.jpg"
        #expect(grammar.signature(of: second) == "as8U2DbUUtTMgvPF26LkjS3MocY=")
        let docs = ThumborGrammar(securityKey: Data("MY_SECURE_KEY".utf8), allowsUnsafe: false)
        #expect(docs.signature(of: "300x200/smart/path/to/image.jpg") == "3ZAFIB9OK_j_R10MafCdhFO99mE=")
        #expect(ThumborGrammar(securityKey: nil, allowsUnsafe: true).signature(of: "x") == nil)
    }

    @Test func signedPathsAreServed() throws {
        let grammar = ThumborGrammar(securityKey: Data("my-security-key".utf8), allowsUnsafe: false)
        for signature in ["8ammJH8D-7tXy6kU3lTvoXlhu4o=", "8ammJH8D-7tXy6kU3lTvoXlhu4o%3D", "8ammJH8D-7tXy6kU3lTvoXlhu4o%3d"] {
            let request = try grammar.request(forRawPath: "/\(signature)/300x200/my.server.com/some/path/to/image.jpg")
            #expect(request.source.absoluteString == "http://my.server.com/some/path/to/image.jpg")
            #expect(Self.summary(request) == "size=300x200")
            #expect(request.output == .source && request.quality == ThumborGrammar.defaultQuality)
        }
        let second = try grammar.request(forRawPath: "/as8U2DbUUtTMgvPF26LkjS3MocY=/10x10:200x200/300x200/"
            + "filters:brightness(20):contrast(10)/my.server.com/some/path/to/image.jpg")
        #expect(Self.summary(second) == "size=300x200 crop=10x10:200x200 brightness(20) contrast(10)")
        for path in ["/gjMgwUBlDF4RiOSRToECQE8bxvM=/fit-in/300x200/https://img.example.com/a.jpg",
                     "/gjMgwUBlDF4RiOSRToECQE8bxvM=/fit-in/300x200/https:/img.example.com/a.jpg",
                     "/edZAzkZFODgp1_2GRwLotuEHYPc=/fit-in/300x200/filters:quality(80)/https%3A%2F%2Fimg.example.com%2Fa.jpg"] {
            #expect(try grammar.request(forRawPath: path[...]).source.absoluteString == "https://img.example.com/a.jpg")
        }
        #expect(ThumborGrammar.restoringCollapsedSchemes("a/http:/b/https:/c/https://d/x:/y") == "a/http://b/https://c/https://d/x:/y")
        let docs = ThumborGrammar(securityKey: Data("MY_SECURE_KEY".utf8), allowsUnsafe: true)
        #expect(try docs.request(forRawPath: "/3ZAFIB9OK_j_R10MafCdhFO99mE=/300x200/smart/path/to/image.jpg").source.absoluteString
            == "http://path/to/image.jpg")
        #expect(try docs.request(forRawPath: "/unsafe/\(Self.image)").source.absoluteString == Self.source)
    }

    /// A path, the grammar's key and unsafe setting, the status and a word of the reason.
    static let refusals: [(path: String, key: String?, unsafe: Bool, status: Int, reason: String)] = [
        ("/8ammJH8D-7tXy6kU3lTvoXlhu4x=/300x200/my.server.com/some/path/to/image.jpg", "my-security-key", false, 400, "signature"),
        ("/8ammJH8D-7tXy6kU3lTvoXlhu4o=/300x201/my.server.com/some/path/to/image.jpg", "my-security-key", false, 400, "signature"),
        ("/8ammJH8D-7tXy6kU3lTvoXlhu4o/300x200/my.server.com/some/path/to/image.jpg", "my-security-key", false, 400, "signature"),
        ("/8ammJH8D-7tXy6kU3lTvoXlhu4o=/300x200/my.server.com/some/path/to/image.jpg", "other-key", true, 400, "signed with this server's thumbor key"),
        ("/8ammJH8D-7tXy6kU3lTvoXlhu4o=/300x200/my.server.com/some/path/to/image.jpg", nil, true, 400, "no thumbor security key"),
        ("/8ammJH8D-7tXy6kU3lTvoXlhu4o=/300x200/my.server.com/some/path/to/image.jpg", "", false, 400, "no thumbor security key"),
        ("/unsafe/300x200/\(image)", "my-security-key", false, 400, "'unsafe'"),
        ("/my.server.com", nil, true, 400, "neither a signature nor 'unsafe'"),
        ("/", nil, true, 400, "no original image"),
        ("/unsafe/meta/\(image)", nil, true, 400, "meta"),
        ("/unsafe/debug/\(image)", nil, true, 400, "debug"),
        ("/unsafe/ftp://img.example.com/a.jpg", nil, true, 400, "http or https"),
        ("/unsafe/ftp%3A%2F%2Fimg.example.com%2Fa.jpg", nil, true, 400, "http or https"),
        ("/unsafe/http:///a.jpg", nil, true, 400, "no original image"),
        ("/unsafe/https:a.jpg", nil, true, 400, "http or https"),
        ("/unsafe/img.example.com/%FF.jpg", nil, true, 400, "UTF-8"),
        ("/unsafe/filters:fill(red%FF)/\(image)", nil, true, 400, "UTF-8"),
    ]

    @Test func refusals() {
        for refusal in Self.refusals {
            let grammar = ThumborGrammar(securityKey: refusal.key.map { Data($0.utf8) }, allowsUnsafe: refusal.unsafe)
            do {
                let request = try grammar.request(forRawPath: refusal.path[...])
                Issue.record("\(refusal.path) was accepted: \(request.source)")
            } catch let error as ImageServerError {
                #expect(Int(error.status.code) == refusal.status, "\(refusal.path)")
                #expect(error.reason.contains(refusal.reason), "\(refusal.path): \(error.reason)")
            } catch {
                Issue.record("\(refusal.path): \(error)")
            }
        }
    }

    /// `AUTO_WEBP`/`AUTO_AVIF` apply without a format() naming a format, and not with one.
    @Test func automaticFormats() throws {
        let both = ThumborGrammar(securityKey: nil, allowsUnsafe: true, autoWebP: true, autoAVIF: true)
        #expect(Self.summary(try both.request(forRawPath: "/unsafe/\(Self.image)")) == "out=webp+avif+source")
        #expect(Self.summary(try both.request(forRawPath: "/unsafe/filters:format(png)/\(Self.image)")) == "out=png")
        #expect(Self.summary(try both.request(forRawPath: "/unsafe/filters:format(heic)/\(Self.image)")) == "q=0.75")
        #expect(Self.summary(try both.request(forRawPath: "/unsafe/filters:format(bmp)/\(Self.image)")) == "out=webp+avif+source")
        let avif = ThumborGrammar(securityKey: nil, allowsUnsafe: true, autoAVIF: true)
        #expect(try avif.request(forRawPath: "/unsafe/\(Self.image)").output == .sourceOrAccepted([.AVIF]))
        #expect(try ThumborGrammar(securityKey: nil, allowsUnsafe: true).request(forRawPath: "/unsafe/\(Self.image)").output == .source)
    }

    /// thumbor's filters the server does not apply are reported (each once), or refused when strict.
    @Test func unsupportedFilters() throws {
        let path = "/unsafe/filters:saturation(2):quality(70):noise(10):saturation(1):frame(a.png)/\(Self.image)"
        let request = try ThumborGrammar(securityKey: nil, allowsUnsafe: true).request(forRawPath: path[...])
        #expect(request.unsupportedFilters == ["saturation", "noise", "frame"])
        #expect(Self.summary(request) == "q=0.7")
        let strict = ThumborGrammar(securityKey: nil, allowsUnsafe: true, strictFilters: true)
        #expect(throws: ImageServerError.self) { try strict.request(forRawPath: path[...]) }
        #expect(try strict.request(forRawPath: "/unsafe/filters:quality(70):unknown_filter(1)/\(Self.image)").unsupportedFilters.isEmpty)
        do {
            _ = try strict.request(forRawPath: path[...])
        } catch let error as ImageServerError {
            #expect(error.status == .badRequest && error.reason.contains("saturation()"))
        }
    }

    @Test func grammarIdentity() {
        let grammar = ThumborGrammar(securityKey: nil, allowsUnsafe: true)
        #expect(grammar.name == "thumbor" && grammar.refusedSourceStatus == .badRequest)
        #expect(ThumborGrammar.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ThumborGrammar.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!ThumborGrammar.constantTimeEqual(Array("abc".utf8), Array("ab".utf8)))
    }

    /// The geometry fields that differ from no options, then the filters and output settings.
    static func summary(_ request: RenditionRequest) -> String {
        var parts: [String] = []
        for operation in request.operations {
            switch operation {
            case .geometry(let geometry):
                let defaults = Set(fields(ThumborGeometry().description))
                parts += fields(geometry.description).filter { !defaults.contains($0) }
            case .filter(let filter):
                parts.append(describe(filter))
            case .spec, .step:
                parts.append("\(operation)")
            }
        }
        if case .fixed(let format) = request.output { parts.append("out=" + (format.fileExtension == "jpg" ? "jpeg" : format.fileExtension ?? "?")) }
        if request.output == .negotiated { parts.append("out=negotiated") }
        if case .sourceOrAccepted(let formats) = request.output {
            parts.append("out=" + formats.map { $0.rawValue.lowercased() }.joined(separator: "+") + "+source")
        }
        // thumbor's default quality is left out, so the table shows only what a filter changed.
        if let quality = request.quality, quality != ThumborGrammar.defaultQuality { parts.append("q=\(quality)") }
        if let maxBytes = request.maxBytes { parts.append("mb=\(maxBytes)") }
        if let maxAge = request.headers.maxAge { parts.append("age=\(maxAge)") }
        return parts.joined(separator: " ")
    }

    /// The space-separated fields of a geometry's description.
    static func fields(_ description: String) -> [String] {
        description.dropFirst("thumbor(".count).dropLast().split(separator: " ").map(String.init)
    }

    /// A filter in the summary's notation.
    static func describe(_ filter: RenditionFilter) -> String {
        switch filter {
        case .blur(let sigma): return "blur(" + String(format: "%.2f", sigma) + ")"
        case .sharpen(let sigma): return "sharpen(\(sigma))"
        case .grayscale: return "grayscale"
        case .brightness(let amount): return "brightness(\(amount))"
        case .contrast(let amount): return "contrast(\(amount))"
        case .roundCorner(let horizontal, let vertical, let color): return "roundCorner(\(horizontal),\(vertical),\(color))"
        case .background(let color): return "background(\(color))"
        case .pad(let top, let right, let bottom, let left, let color): return "pad(\(top),\(right),\(bottom),\(left),\(color))"
        case .watermark(let watermark): return watermark.description
        case .trim(let corner, let tolerance): return "trim(\(corner.rawValue),\(tolerance))"
        }
    }
}
