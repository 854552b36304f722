import Foundation
import Testing
@testable import KingfisherServer

/// Random paths and options: the grammar either answers or throws an ``ImageServerError``, and
/// the geometry always resolves to positive sizes, whatever the input.
@Suite("imgproxy robustness")
struct ImgproxyRobustnessTests {
    /// A deterministic generator (64-bit LCG), so every run tries the same inputs.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        mutating func pick<T>(_ items: [T]) -> T { items[next(items.count)] }
    }

    static let pieces = [
        "/", ":", "%3A", "%", "@", ".", "=", "plain", "rs", "fill", "fit", "fill-down", "force", "auto", "g", "sm",
        "fp", "c", "ex", "exar", "pd", "bg", "z", "dpr", "rot", "fl", "q", "fq", "f", "webp", "png", "heic", "pr",
        "default", "exp", "fn", "mb", "-1", "0", "0.5", "1", "90", "270", "1e300", "nan", "99999999999999999999",
        "http://", "https:/", "s3://", "aHR0cDovL2E", "uYi9j", "LmpwZw", "example.com", "ce", "no", "soea", "t", "x",
    ]

    @Test("2,000 random paths never trap and fail only with ImageServerError")
    func randomPaths() throws {
        let configuration = try ImgproxyConfiguration(presets: ["default": ["q:70"], "p": ["pr:p", "w:5"]])
        let grammar = ImgproxyGrammar(configuration: configuration, allowsUnsigned: true)
        var generator = Generator(state: 0x5EED)
        var answered = 0
        for _ in 0..<2000 {
            var path = "/_/"
            for _ in 0..<(1 + generator.next(14)) { path += generator.pick(Self.pieces) }
            do {
                _ = try grammar.request(forRawPath: Substring(path))
                answered += 1
            } catch is ImageServerError {
                continue
            } catch {
                Issue.record("\(path) threw \(error)")
            }
        }
        #expect(answered > 0)
    }

    @Test("random geometry on random sizes resolves to positive sizes")
    func randomGeometry() throws {
        var generator = Generator(state: 0xC0FFEE)
        let options = ["rs:fit:%d:%d", "rs:fill:%d:%d", "rs:fill-down:%d:%d", "rs:force:%d:%d", "rs:auto:%d:%d",
                       "el:1", "ex:1:soea:%d:%d", "exar:1", "g:we:%d:%d", "g:sm", "g:fp:0.%d:0.%d", "c:%d:%d:noea",
                       "pd:%d:%d", "dpr:%d", "z:%d", "rot:%d0", "fl:1:1", "mw:%d", "mh:%d"]
        for _ in 0..<3000 {
            var segments: [String] = []
            for _ in 0..<(1 + generator.next(5)) {
                var option = generator.pick(options)
                while let range = option.range(of: "%d") {
                    option.replaceSubrange(range, with: String(generator.next(600)))
                }
                segments.append(option)
            }
            let geometry: ImgproxyGeometry
            do {
                geometry = try ImgproxyGeometryTests.geometry(segments.joined(separator: "/"))
            } catch is ImageServerError {
                continue
            }
            let source = (1 + generator.next(3000), 1 + generator.next(3000))
            let size = ImgproxyGeometryTests.size(after: geometry.steps(width: source.0, height: source.1), from: source)
            #expect(size.0 >= 1 && size.1 >= 1, "\(segments) on \(source)")
        }
    }
}
