import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import KingfisherServer

@Suite("kf serve security")
struct SecurityTests {
    @Test("a bad, foreign or missing signature is 403 and the origin is never asked")
    func signatures() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let good = harness.path("/a.jpg", spec: "downsample(10x10)")
            var segments = good.split(separator: "/").map(String.init)
            let signature = segments[0]
            segments[0] = (signature.first == "A" ? "B" : "A") + signature.dropFirst()
            let tampered = try await harness.get("/" + segments.joined(separator: "/"))
            #expect(tampered.status == .forbidden)
            #expect(tampered.text == "the signature does not match the path: check that the URL was signed with this server's key (--key or KF_SERVE_KEY)\n")

            let otherSpec = harness.path("/a.jpg", spec: "downsample(20x20)").split(separator: "/")
            let swapped = try await harness.get("/\(otherSpec[0])/png/downsample(10x10)/\(otherSpec[3])")
            #expect(swapped.status == .forbidden)

            let foreignKey = ImagePath(
                source: harness.origin.url("/a.jpg"), spec: "-", format: .png, signer: URLSigner(key: Data("other".utf8)))
            #expect(try await harness.get(foreignKey.path).status == .forbidden)

            let unsigned = ImagePath(source: harness.origin.url("/a.jpg"), spec: "-", format: .png, signer: nil)
            let missing = try await harness.get(unsigned.path)
            #expect(missing.status == .forbidden)
            #expect(missing.text.contains("not signed"))
            #expect(try await harness.get("/png/-/abc").status == .notFound)
            #expect(harness.origin.requestCount(for: "/a.jpg") == 0)

            #expect(try await harness.get(good).status == .ok)
        }
    }

    @Test("unsafe paths are served only with allowsUnsigned")
    func unsigned() async throws {
        try await ServeKit.run(configure: { $0.allowsUnsigned = true; $0.signingKey = nil }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let path = ImagePath(source: harness.origin.url("/a.jpg"), spec: "-", format: .png, signer: nil).path
            #expect(path.hasPrefix("/unsafe/png/-/"))
            let response = try await harness.get(path)
            #expect(response.status == .ok)
        }
    }

    @Test("a source outside the allow-list is 403")
    func allowList() async throws {
        try await ServeKit.run(configure: { $0.allowedSources = SourceAllowList(["http://127.0.0.1:1/only/"]) }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let response = try await harness.get(harness.path("/a.jpg"))
            #expect(response.status == .forbidden)
            #expect(response.text.contains("allow-list"))
            let elsewhere = try await harness.get(
                harness.server.path(for: try #require(URL(string: "http://example.com/a.jpg")), spec: "-", format: .png))
            #expect(elsewhere.status == .forbidden)
            #expect(harness.origin.requestCount(for: "/a.jpg") == 0)
        }
    }

    @Test("hosts resolving to loopback, private, link-local or metadata addresses are 403 unless allowed")
    func internalAddresses() async throws {
        let hosts = ["localhost", "127.0.0.1", "10.1.2.3", "192.168.0.7", "169.254.169.254", "[::1]", "0.0.0.0"]
        try await ServeKit.run(configure: {
            $0.allowedSources = SourceAllowList(hosts.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) } + ["[::1]"])
            $0.allowedAddresses = []
        }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            for host in hosts {
                let source = try #require(URL(string: "http://\(host):\(harness.origin.port)/a.jpg"))
                let response = try await harness.get(harness.server.path(for: source, spec: "-", format: .png))
                #expect(response.status == .forbidden, "\(host)")
                #expect(response.text.contains("resolves to"), "\(host): \(response.text)")
            }
            let metadata = try await harness.get(harness.server.path(
                for: try #require(URL(string: "http://169.254.169.254/latest/meta-data")), spec: "-", format: .png))
            #expect(metadata.text.contains("metadata address"))
            #expect(harness.origin.requestCount(for: "/a.jpg") == 0)
        }
    }

    @Test("allowedAddresses takes ranges: 127.0.0.0/8 allows the loopback origin, 10.0.0.0/8 does not, and the 403 names the flag")
    func addressRanges() async throws {
        for (ranges, allowed) in [(["127.0.0.0/8"], true), (["::ffff:127.0.0.0/104"], true), (["10.0.0.0/8", "fd00::/8"], false)] {
            try await ServeKit.run(configure: { $0.allowedAddresses = Set(ranges) }) { harness in
                harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
                let response = try await harness.get(harness.path("/a.jpg"))
                #expect(response.status == (allowed ? .ok : .forbidden), "\(ranges)")
                if !allowed {
                    #expect(response.text.contains("kf serve --allow-address 127.0.0.1"), "\(response.text)")
                }
            }
        }
    }

    @Test("allowPrivateAddresses lets the server fetch from loopback")
    func privateAllowed() async throws {
        try await ServeKit.run(configure: { $0.allowedAddresses = []; $0.allowPrivateAddresses = true }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let response = try await harness.get(harness.path("/a.jpg"))
            #expect(response.status == .ok)
        }
    }

    @Test("allow-list entries: hosts, wildcards and URL prefixes")
    func allowListMatching() throws {
        let list = SourceAllowList(["cdn.example.com", "*.img.example.org", "https://bucket.example.net/public/", "http://plain.example"])
        func allows(_ text: String) throws -> Bool { list.allows(try #require(URL(string: text))) }
        #expect(try allows("https://CDN.example.com/a.jpg"))
        #expect(try allows("http://cdn.example.com:8080/a.jpg"))
        #expect(try allows("https://eu.img.example.org/a.jpg"))
        #expect(try !allows("https://img.example.org/a.jpg"))
        #expect(try allows("https://bucket.example.net/public/x/a.jpg"))
        #expect(try !allows("https://bucket.example.net/private/a.jpg"))
        #expect(try !allows("http://bucket.example.net/public/a.jpg"))
        #expect(try allows("http://plain.example/a.jpg"))
        #expect(try !allows("http://plain.example.evil.net/a.jpg"))
        #expect(try !allows("http://plain.example@evil.net/a.jpg"))
        #expect(try !allows("ftp://cdn.example.com/a.jpg"))
        #expect(!SourceAllowList([]).allows(try #require(URL(string: "https://cdn.example.com/a.jpg"))))
    }

    @Test("address kinds", arguments: [
        ([127, 0, 0, 1], "loopback"), ([10, 0, 0, 1], "private"), ([172, 20, 1, 1], "private"), ([172, 32, 0, 1], "public"),
        ([192, 168, 1, 1], "private"), ([169, 254, 169, 254], "metadata"), ([169, 254, 1, 1], "link-local"),
        ([100, 64, 0, 1], "shared (CGNAT)"), ([0, 0, 0, 0], "unspecified"), ([8, 8, 8, 8], "public"), ([224, 0, 0, 1], "multicast"),
    ] as [([UInt8], String)])
    func ipv4Kinds(bytes: [UInt8], kind: String) {
        #expect(ResolvedAddress(bytes: bytes).kind == kind)
    }

    @Test("IPv6 address kinds, mapped IPv4 included")
    func ipv6Kinds() {
        var loopback = [UInt8](repeating: 0, count: 16)
        loopback[15] = 1
        #expect(ResolvedAddress(bytes: loopback).kind == "loopback")
        #expect(ResolvedAddress(bytes: loopback).text == "::1")
        let mapped: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 169, 254, 169, 254]
        #expect(ResolvedAddress(bytes: mapped).kind == "metadata")
        #expect(ResolvedAddress(bytes: [0xFD] + [UInt8](repeating: 1, count: 15)).kind == "private")
        #expect(ResolvedAddress(bytes: [0xFE, 0x80] + [UInt8](repeating: 0, count: 14)).kind == "link-local")
        #expect(ResolvedAddress(bytes: [0x26, 0x06] + [UInt8](repeating: 0, count: 14)).kind == "public")
    }

    @Test("signatures: stable, base64url, and bound to every part")
    func signer() {
        let signer = URLSigner(key: Data("k".utf8))
        let signature = signer.signature(format: "png", spec: "blur(2)", source: "https://a.example/x.jpg")
        #expect(signature.count == 43)
        #expect(signature == signer.signature(format: "png", spec: "blur(2)", source: "https://a.example/x.jpg"))
        #expect(signer.isValid(signature: signature, format: "png", spec: "blur(2)", source: "https://a.example/x.jpg"))
        #expect(!signer.isValid(signature: signature, format: "jpeg", spec: "blur(2)", source: "https://a.example/x.jpg"))
        #expect(!signer.isValid(signature: signature, format: "png", spec: "blur(3)", source: "https://a.example/x.jpg"))
        #expect(!signer.isValid(signature: signature, format: "png", spec: "blur(2)", source: "https://a.example/y.jpg"))
        #expect(!signer.isValid(signature: "", format: "png", spec: "blur(2)", source: "https://a.example/x.jpg"))
        #expect(!signer.isValid(signature: "%%%", format: "png", spec: "blur(2)", source: "https://a.example/x.jpg"))
    }
}
