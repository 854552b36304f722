import Foundation
import Kingfisher

/// The cheat sheet's snippets on animated images, progressive JPEG, errors and images without
/// the pipeline. `url` is an image's URL, `imageView` an ``AvatarView``, `gifData` an animated
/// GIF's bytes, `data` any image's bytes.
@MainActor struct CheatSheetAnimationSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    nonisolated func print(_ items: Any...) { log.append(items) }

    func firstFrameOnly(imageView: AvatarView, url: URL) {
        // snippet: cheat-animated-first-frame
        imageView.kf.setImage(with: url, options: [.onlyLoadFirstFrame])   // a still, whatever the file
        // end snippet
    }

    nonisolated func animator(gifData: Data) async throws {
        // snippet: cheat-animator
        // Decode one frame now and the others when they are shown, a few at a time.
        let options = ImageCreatingOptions(preloadAllFrames: false)
        let image = try KFCrossPlatformImage(data: gifData, options: options)
        if let frames = image.frameSource {
            let animator = Animator(frameSource: frames, maxFrameCount: 10, repeatCount: .finite(count: 2))
            await animator.waitUntilPreloaded()
            var now: TimeInterval = 0
            while !animator.isFinished && now < 60 {               // your frame clock drives it
                animator.tick(at: now)
                _ = animator.currentFrameImage                     // draw this frame
                now += 1.0 / 60
            }
            print(frames.frameCount, "frames,", animator.loopsPlayed, "loops played")
        }
        // end snippet
    }

    func progressive(imageView: AvatarView, url: URL) {
        // snippet: cheat-progressive-jpeg
        let progressive = ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0.1) { partial in
            .default                                               // show it; .keepCurrent skips it
        }
        imageView.kf.setImage(with: url, options: [.progressiveJPEG(progressive)])
        // end snippet
    }

    func errors(imageView: AvatarView, url: URL, brokenImage: KFCrossPlatformImage) {
        // snippet: cheat-errors
        imageView.kf.setImage(with: url, options: [.onFailureImage(brokenImage)]) { result in
            guard case .failure(let error) = result else { return }
            if error.isNotCurrentTask || error.isTaskCancelled { return }   // superseded or cancelled
            switch error {
            case .responseError(reason: .invalidHTTPStatusCode(let response)):
                print("the server answered \(response.statusCode)")
            case .responseError(reason: .responseTooLarge), .responseError(reason: .downloadTimedOut):
                print("too large or too slow: \(error.localizedDescription)")
            case .processorError(reason: .imageLimitExceeded(_, let violation)):
                print("refused before decoding: \(violation)")
            default:
                print("error \(error.errorCode): \(error.localizedDescription)")
            }
        }
        // end snippet
    }

    nonisolated func limits(url: URL) async throws {
        // snippet: cheat-decoding-limits
        let limits = ImageDecodingLimits(maxPixelsPerFrame: 16_000_000, maxFrameCount: 300)
        let result = try await KingfisherManager.shared.retrieveImage(with: url, options: [.decodingLimits(limits)])
        // end snippet
        _ = result
    }

    nonisolated func withoutPipeline(fileURL: URL) throws {
        // snippet: cheat-image-data
        let data = try Data(contentsOf: fileURL)
        let header = try ImageHeader(data: data)                  // no pixels decoded
        let thumbnailSource = try KFCrossPlatformImage(            // JPEG decoded at 1/8 when that is enough
            data: data, options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 200, height: 200)))
        let png = thumbnailSource.kf.pngRepresentation()
        let jpeg = thumbnailSource.kf.jpegRepresentation(compressionQuality: 0.8)
        print(header.format, header.orientedPixelSize, thumbnailSource.pixelWidth, png?.count ?? 0, jpeg?.count ?? 0)
        // end snippet
    }
}
