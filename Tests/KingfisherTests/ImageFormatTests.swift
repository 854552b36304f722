import Foundation
import Testing
@testable import Kingfisher

@Suite struct ImageFormatTests {
    @Test func sniffsMagicBytes() {
        #expect(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]).kf.imageFormat == .PNG)
        #expect(Data([0xFF, 0xD8, 0xFF, 0xE0]).kf.imageFormat == .JPEG)
        #expect(Data("GIF89a".utf8).kf.imageFormat == .GIF)
        #expect(Data("GIF87a".utf8).kf.imageFormat == .GIF)
        #expect(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8).kf.imageFormat == .WebP)
        #expect(Data("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8).kf.imageFormat == .unknown)
        #expect(Data().kf.imageFormat == .unknown)
        #expect(Data([0xFF, 0xD8]).kf.imageFormat == .unknown)
    }

    @Test func emptyAndUnknownDataAreClearErrors() {
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: Data()) }
        do {
            _ = try KFCrossPlatformImage(data: Data("hello, world".utf8))
            Issue.record("decoding text succeeded")
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4102)
            #expect(error.localizedDescription.contains("68 65 6c 6c"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
