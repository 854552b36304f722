import Foundation
import Testing
@testable import Kingfisher

/// `keepsSourceColors` reaches the frames a lazily decoded animation makes on demand.
@Suite struct ColorLazyFrameTests {
    @Test(arguments: ["p3-animated.png", "p3-animated.webp"])
    func lazyFramesKeepSourceColorsWhenAsked(name: String) throws {
        let data = try Fixtures.data("color/\(name)")
        let kept = ImageCreatingOptions(preloadAllFrames: true, keepsSourceColors: true)
        let converted = ImageCreatingOptions(preloadAllFrames: false)
        let reference = try KFCrossPlatformImage(data: data, options: kept)
        try #require(reference.frames.count == 2)
        let lazyKept = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false, keepsSourceColors: true))
        let lazyConverted = try KFCrossPlatformImage(data: data, options: converted)
        let keptSecond = try #require(lazyKept.frameSource).frame(at: 1, maxSize: nil)
        let convertedSecond = try #require(lazyConverted.frameSource).frame(at: 1, maxSize: nil)
        #expect(keptSecond.pixels == reference.frames[1].pixels)
        #expect(convertedSecond.pixels != reference.frames[1].pixels)
    }
}
