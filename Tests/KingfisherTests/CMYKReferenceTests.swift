import Foundation
import Testing
@testable import Kingfisher

/// CMYK files from public corpora against their references: jpeg-decoder's Adobe YCCK JPEG and
/// libjxl's `cmyk_layers` conformance sample.
@Suite struct CMYKReferenceTests {
    static func frame(_ path: String) throws -> ImageFrame {
        // References are sRGB PNGs; keep their samples exactly as stored.
        try KFCrossPlatformImage(data: Fixtures.data(path), options: ImageCreatingOptions(keepsSourceColors: true)).firstFrame
    }

    @Test func adobeYCCKGoesThroughItsEmbeddedProfileAsLCMS2Does() throws {
        let image = try KFCrossPlatformImage(data: Fixtures.data("jpeg/jpeg-decoder-ycck.jpg"))
        let reference = try Self.frame("jpeg/jpeg-decoder-ycck-lcms2.png")
        let comparison = try #require(PixelComparison(image.firstFrame, reference))
        #expect(comparison.maxError <= 1, "max \(comparison.maxError), PSNR \(comparison.psnr)")
    }

    @Test func adobeYCCKWithoutColourManagementMatchesJpegDecodersReference() throws {
        // jpeg-decoder's reference was made by ImageMagick without the profile: the naive formula.
        let keep = ImageCreatingOptions(keepsSourceColors: true)
        let image = try KFCrossPlatformImage(data: Fixtures.data("jpeg/jpeg-decoder-ycck.jpg"), options: keep)
        let reference = try Self.frame("jpeg/jpeg-decoder-ycck.png")
        let comparison = try #require(PixelComparison(image.firstFrame, reference))
        // jpeg-decoder's own reftest allows 3 (different IDCTs and upsampling).
        #expect(comparison.maxError <= 3, "max \(comparison.maxError), PSNR \(comparison.psnr)")
        // And the profile does change the colours: the two references are far apart.
        let managed = try #require(PixelComparison(reference, Self.frame("jpeg/jpeg-decoder-ycck-lcms2.png")))
        #expect(managed.maxError > 50)
    }

    @Test func cmykJPEGXLGoesThroughItsEmbeddedProfile() throws {
        let image = try KFCrossPlatformImage(data: Fixtures.data("jxl/cmyk_layers.jxl"))
        #expect(image.pixelWidth == 512 && image.pixelHeight == 512)
        // The same layers, CMY and black through the profile by lcms2 (Fixtures/References.md).
        let lcms2 = try #require(PixelComparison(image.firstFrame, Self.frame("jxl/cmyk_layers-lcms2.png")))
        #expect(lcms2.maxError <= 1, "max \(lcms2.maxError), PSNR \(lcms2.psnr)")
        // The conformance suite's sRGB rendering used another intent (lcms2's perceptual one comes
        // within 15 of it, 46 dB); relative colorimetric stays within 36 of it, 37 dB.
        let conformance = try #require(PixelComparison(image.firstFrame, Self.frame("jxl/cmyk_layers-ref.png")))
        #expect(conformance.psnr >= 36 && conformance.maxError <= 40,
                "max \(conformance.maxError), PSNR \(conformance.psnr), over 3: \(conformance.overThree)")
    }

    @Test func cmykJPEGXLWithoutColourManagementIsNotShownAsRawInk() throws {
        // Kept source colours give the naive formula: still a picture, not the inverted ink values.
        let keep = ImageCreatingOptions(keepsSourceColors: true)
        let image = try KFCrossPlatformImage(data: Fixtures.data("jxl/cmyk_layers.jxl"), options: keep)
        let conformance = try #require(PixelComparison(image.firstFrame, Self.frame("jxl/cmyk_layers-ref.png")))
        #expect(conformance.psnr >= 15, "PSNR \(conformance.psnr)")
    }
}
