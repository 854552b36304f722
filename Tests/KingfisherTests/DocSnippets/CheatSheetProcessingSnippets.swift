import Foundation
import Kingfisher

// snippet: cheat-custom-processor
/// Inverts the colours of every frame; alpha is kept (pixels are premultiplied RGBA).
struct InvertProcessor: ImageProcessor {
    let identifier = "com.example.InvertProcessor"   // name every parameter: it is part of cache keys

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = DefaultImageProcessor.default.process(item: item, options: options) else { return nil }
        let frames = image.frames.compactMap { frame -> ImageFrame? in
            var pixels = frame.pixels
            pixels.withUnsafeMutableBufferPointer { p in
                for i in stride(from: 0, to: p.count, by: 4) {
                    let alpha = p[i + 3]
                    p[i] = alpha &- p[i]; p[i + 1] = alpha &- p[i + 1]; p[i + 2] = alpha &- p[i + 2]
                }
            }
            return ImageFrame(width: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
        }
        return KFCrossPlatformImage(frames: frames, loopCount: image.loopCount, scale: image.scale)
    }
}
// end snippet

/// The cheat sheet's processor snippets. `url` is an image's URL, `imageView` an ``AvatarView``.
@MainActor struct CheatSheetProcessingSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    nonisolated func print(_ items: Any...) { log.append(items) }

    func oneProcessor(imageView: AvatarView, url: URL) {
        // snippet: cheat-processor-option
        let processor = RoundCornerImageProcessor(cornerRadius: 20)
        imageView.kf.setImage(with: url, options: [.processor(processor)])
        // end snippet
    }

    func chain(imageView: AvatarView, url: URL) {
        // snippet: cheat-processor-chain
        let processor = DownsamplingImageProcessor(size: CGSize(width: 200, height: 200))
            |> BlurImageProcessor(blurRadius: 4)
            |> RoundCornerImageProcessor(cornerRadius: 20)
        imageView.kf.setImage(with: url, options: [.processor(processor), .scaleFactor(2)])
        // end snippet
    }

    func builderChain(imageView: AvatarView, url: URL) {
        // snippet: cheat-processor-builder
        KF.url(url)
            .downsampling(size: CGSize(width: 200, height: 200))
            .roundCorner(radius: .point(20))
            .blackWhite()
            .set(to: imageView)
        // end snippet
    }

    nonisolated func direct(data: Data) {
        // snippet: cheat-processor-direct
        let processor = DownsamplingImageProcessor(size: CGSize(width: 200, height: 200))
            |> RoundCornerImageProcessor(cornerRadius: 20)
        let options = KingfisherParsedOptionsInfo([.processor(processor), .scaleFactor(2)])
        if let thumbnail = processor.process(item: .data(data), options: options) {
            print(thumbnail.size, thumbnail.scale, thumbnail.pixelWidth)   // points, 2.0, pixels
        }
        // end snippet
    }

    nonisolated func spec(data: Data) throws {
        // snippet: cheat-processor-spec
        let processor = try ProcessorSpec(parsing: "fit(300x200,fill,smart)|>sharpen(0.8)").processor()
        let image = processor.process(item: .data(data), options: KingfisherParsedOptionsInfo(nil))
        print(processor.identifier, image?.size ?? .zero)
        // end snippet
    }

    func custom(imageView: AvatarView, url: URL) {
        // snippet: cheat-custom-processor-use
        imageView.kf.setImage(with: url, options: [.processor(DownsamplingImageProcessor(size: CGSize(width: 64, height: 64))
                                                              |> InvertProcessor())])
        // end snippet
    }
}
