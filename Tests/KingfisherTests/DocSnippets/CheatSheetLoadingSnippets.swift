import Foundation
import Kingfisher

/// The cheat sheet's loading snippets: through the manager, onto an image target, with the `KF`
/// builder, from local files and data. `url` is an image's URL, `imageView` an ``AvatarView``.
@MainActor struct CheatSheetLoadingSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    nonisolated func print(_ items: Any...) { log.append(items) }

    func retrieveAsync(url: URL) async throws {
        // snippet: cheat-retrieve-async
        let result = try await KingfisherManager.shared.retrieveImage(with: url)
        print(result.image.size, result.cacheType)   // .none, then .memory; .disk in a new process
        // end snippet
    }

    func retrieveWithCallback(url: URL) {
        // snippet: cheat-retrieve-callback
        KingfisherManager.shared.retrieveImage(with: url) { result in
            switch result {
            case .success(let value): print("\(value.image.size) from \(value.cacheType)")
            case .failure(let error): print("failed: \(error.localizedDescription)")
            }
        }
        // end snippet
    }

    func setImage(imageView: AvatarView, url: URL) {
        // snippet: cheat-set-image
        imageView.kf.setImage(with: url)
        // end snippet
    }

    func setImageWithEverything(imageView: AvatarView, url: URL, placeholderImage: KFCrossPlatformImage) {
        // snippet: cheat-set-image-full
        imageView.kf.setImage(
            with: url,
            placeholder: placeholderImage,
            options: [.processor(DownsamplingImageProcessor(size: CGSize(width: 64, height: 64))),
                      .transition(.fade(0.25))],
            progressBlock: { received, total in print("\(received) of \(total) bytes") }
        ) { result in                                          // on the main actor
            switch result {
            case .success(let value): print("shown, from \(value.cacheType)")
            case .failure(let error): print("failed: \(error)")
            }
        }
        // end snippet
    }

    func builder(imageView: AvatarView, url: URL, placeholderImage: KFCrossPlatformImage) {
        // snippet: cheat-kf-builder
        KF.url(url)
            .placeholder(placeholderImage)
            .downsampling(size: CGSize(width: 64, height: 64))
            .cacheOriginalImage()
            .fade(duration: 0.25)
            .onProgress { received, total in print("\(received) of \(total) bytes") }
            .onSuccess { result in print("shown, from \(result.cacheType)") }
            .onFailure { error in print("failed: \(error)") }
            .set(to: imageView)
        // end snippet
    }

    func setImageAsync(imageView: AvatarView, url: URL) async throws {
        // snippet: cheat-set-image-async
        let result = try await imageView.kf.setImageAsync(with: url)
        print(result.cacheType)
        // end snippet
    }

    func customKey(imageView: AvatarView, url: URL) {
        // snippet: cheat-custom-cache-key
        let resource = KF.ImageResource(downloadURL: url, cacheKey: "avatar-of-user-42")
        imageView.kf.setImage(with: resource)
        // end snippet
    }

    func providers(imageView: AvatarView, pngData: Data, base64String: String) {
        // snippet: cheat-data-providers
        let file = LocalFileImageDataProvider(fileURL: URL(fileURLWithPath: "/srv/images/logo.png"))
        imageView.kf.setImage(with: file)                  // a file URL does the same
        imageView.kf.setImage(with: Base64ImageDataProvider(base64String: base64String, cacheKey: "logo-b64"))
        imageView.kf.setImage(with: RawImageDataProvider(data: pngData, cacheKey: "logo-raw"))
        // end snippet
    }

    func cancel(imageView: AvatarView, url: URL) {
        // snippet: cheat-cancel
        let task = imageView.kf.setImage(with: url)
        task?.cancel()                                     // or, for whatever the view is loading:
        imageView.kf.cancelDownloadTask()
        // end snippet
    }
}
