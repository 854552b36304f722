import Foundation
import Kingfisher
import Testing
@testable import KingfisherServer

@Suite("imgproxy configuration")
struct ImgproxyConfigurationTests {
    @Test("an empty environment gives imgproxy's defaults and no signing")
    func defaults() throws {
        let configuration = try ImgproxyConfiguration(environment: [:])
        #expect(!configuration.signsURLs)
        #expect(configuration.signatureSize == 32)
        #expect(configuration.quality == 80)
        #expect(configuration.defaultQuality(for: .WebP) == 79)
        #expect(configuration.defaultQuality(for: .AVIF) == 63)
        #expect(configuration.defaultQuality(for: .JXL) == 77)
        #expect(configuration.defaultQuality(for: .JPEG) == 80)
        #expect(configuration.ttl == 31_536_000)
        #expect(configuration.presets.isEmpty && !configuration.onlyPresets && configuration.baseURL.isEmpty)
        #expect(!configuration.autoWebP && !configuration.enforceWebP && !configuration.autoAVIF && !configuration.enforceAVIF)
    }

    @Test("keys and salts are hex lists that pair up by position")
    func keysAndSalts() throws {
        let configuration = try ImgproxyConfiguration(environment: [
            "IMGPROXY_KEY": "736563726574, AABB", "IMGPROXY_SALT": "68656C6C6F,ccdd",
        ])
        #expect(configuration.keys == [Array("secret".utf8), [0xAA, 0xBB]])
        #expect(configuration.salts == [Array("hello".utf8), [0xCC, 0xDD]])
        #expect(configuration.signsURLs)
    }

    @Test("mismatched counts, bad hex and out-of-range values are refused with a message naming the variable",
          arguments: [
              ["IMGPROXY_KEY": "aa,bb", "IMGPROXY_SALT": "cc"],
              ["IMGPROXY_KEY": "aa"],
              ["IMGPROXY_KEY": "zz", "IMGPROXY_SALT": "cc"],
              ["IMGPROXY_KEY": "abc", "IMGPROXY_SALT": "cc"],
              ["IMGPROXY_SIGNATURE_SIZE": "0"],
              ["IMGPROXY_SIGNATURE_SIZE": "33"],
              ["IMGPROXY_SIGNATURE_SIZE": "eight"],
              ["IMGPROXY_QUALITY": "0"],
              ["IMGPROXY_FORMAT_QUALITY": "webp=101"],
              ["IMGPROXY_FORMAT_QUALITY": "bogus=50"],
              ["IMGPROXY_FORMAT_QUALITY": "webp"],
              ["IMGPROXY_ONLY_PRESETS": "yes"],
              ["IMGPROXY_TTL": "-1"],
              ["IMGPROXY_PRESETS": "thumb"],
              ["IMGPROXY_PRESETS": "=rs:fit:10:10"],
              ["IMGPROXY_PRESETS": "thumb=plain"],
              ["IMGPROXY_PRESETS": "thumb=bogus:1"],
              ["IMGPROXY_PRESETS": "thumb=pr:missing"],
          ])
    func refused(environment: [String: String]) {
        #expect(throws: ImgproxyConfigurationError.self) { try ImgproxyConfiguration(environment: environment) }
    }

    @Test("the key/salt count message says what to fix")
    func countMessage() {
        do {
            _ = try ImgproxyConfiguration(environment: ["IMGPROXY_KEY": "aa,bb", "IMGPROXY_SALT": "cc"])
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("IMGPROXY_KEY has 2 keys and IMGPROXY_SALT 1 salts"))
        }
    }

    @Test("signature size, trusted signatures, TTL, base URL and quality are read")
    func scalars() throws {
        let configuration = try ImgproxyConfiguration(environment: [
            "IMGPROXY_SIGNATURE_SIZE": "8", "IMGPROXY_TRUSTED_SIGNATURES": "abc, def",
            "IMGPROXY_TTL": "3600", "IMGPROXY_BASE_URL": "https://cdn.example.com/",
            "IMGPROXY_QUALITY": "70", "IMGPROXY_FORMAT_QUALITY": "jpeg=90, avif=50",
        ])
        #expect(configuration.signatureSize == 8)
        #expect(configuration.trustedSignatures == ["abc", "def"])
        #expect(configuration.ttl == 3600)
        #expect(configuration.baseURL == "https://cdn.example.com/")
        #expect(configuration.quality == 70)
        // IMGPROXY_FORMAT_QUALITY is merged over the defaults (processing/config.go maps.Copy).
        #expect(configuration.defaultQuality(for: .JPEG) == 90)
        #expect(configuration.defaultQuality(for: .AVIF) == 50)
        #expect(configuration.defaultQuality(for: .WebP) == 79)
        #expect(configuration.defaultQuality(for: .PNG) == 70)
    }

    @Test("format detection flags and their old names")
    func detectionFlags() throws {
        let current = try ImgproxyConfiguration(environment: [
            "IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_ENFORCE_AVIF": "1",
        ])
        #expect(current.autoWebP && current.enforceAVIF && !current.autoAVIF && !current.enforceWebP)
        let old = try ImgproxyConfiguration(environment: [
            "IMGPROXY_ENABLE_WEBP_DETECTION": "t", "IMGPROXY_ENABLE_AVIF_DETECTION": "TRUE",
        ])
        #expect(old.autoWebP && old.autoAVIF)
        let explicit = try ImgproxyConfiguration(environment: [
            "IMGPROXY_AUTO_WEBP": "false", "IMGPROXY_ENABLE_WEBP_DETECTION": "true",
        ])
        #expect(!explicit.autoWebP)
    }

    @Test("presets: name=options, comma-separated, blank and # entries skipped, custom separator")
    func presets() throws {
        let configuration = try ImgproxyConfiguration(environment: [
            "IMGPROXY_PRESETS": "default=q:70, thumb=rs:fill:100:100/g:sm ,,#note=x, big=w:2000",
            "IMGPROXY_ONLY_PRESETS": "1",
        ])
        #expect(configuration.presets == [
            "default": ["q:70"], "thumb": ["rs:fill:100:100", "g:sm"], "big": ["w:2000"],
        ])
        #expect(configuration.onlyPresets)
        let separated = try ImgproxyConfiguration(environment: [
            "IMGPROXY_PRESETS": "a=bg:1:2:3;b=pd:1", "IMGPROXY_PRESETS_SEPARATOR": ";",
        ])
        #expect(separated.presets == ["a": ["bg:1:2:3"], "b": ["pd:1"]])
    }

    @Test("--imgproxy-key and --imgproxy-salt replace the environment's pairs, and need each other")
    func flagsOverride() throws {
        let environment = try ImgproxyConfiguration(environment: ["IMGPROXY_KEY": "aa,bb", "IMGPROXY_SALT": "cc,dd"])
        let overridden = try environment.overriding(keyHex: "736563726574", saltHex: "68656c6c6f")
        #expect(overridden.keys == [Array("secret".utf8)])
        #expect(overridden.salts == [Array("hello".utf8)])
        #expect(try environment.overriding(keyHex: nil, saltHex: nil) == environment)
        #expect(throws: ImgproxyConfigurationError.self) { try environment.overriding(keyHex: "aa", saltHex: nil) }
        #expect(throws: ImgproxyConfigurationError.self) { try environment.overriding(keyHex: "xyz", saltHex: "aa") }
    }

    @Test("the memberwise initialiser checks what the environment reader checks")
    func memberwise() throws {
        #expect(throws: ImgproxyConfigurationError.self) { try ImgproxyConfiguration(keys: [[1]], salts: []) }
        #expect(throws: ImgproxyConfigurationError.self) { try ImgproxyConfiguration(signatureSize: 40) }
        #expect(throws: ImgproxyConfigurationError.self) { try ImgproxyConfiguration(presets: ["x": ["w:abc"]]) }
        let configuration = try ImgproxyConfiguration(keys: [[1, 2]], salts: [[3]], signatureSize: 8)
        #expect(configuration.signsURLs && configuration.signatureSize == 8)
    }
}
