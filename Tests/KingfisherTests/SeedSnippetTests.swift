import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

// The view-layer snippets of the seed articles (`shared/seeds/000`, `001`, `002`), kept as the
// articles write them with only their UIKit lines replaced: `UIImageView` by `TestImageView`,
// `UIImage(named:)` by a test image, `UIProgressView` by a recorder, `UIView` placeholders and
// indicators by plain classes. Each snippet runs in a synchronous main-actor function, as in an
// app, and the test checks what the article says it does.

/// Article 000 §16: a placeholder view (`class MyPlaceholder: UIView, Placeholder {}`).
@MainActor final class MyPlaceholder: Placeholder {
    var shownOn: [ObjectIdentifier] = []
    nonisolated init() {}
    func add(to target: any KingfisherImageSettable) { shownOn.append(ObjectIdentifier(target)) }
    func remove(from target: any KingfisherImageSettable) { shownOn.removeAll { $0 == ObjectIdentifier(target) } }
}

/// Article 000 §16: a custom indicator implements `startAnimatingView` / `stopAnimatingView`.
@MainActor final class MyIndicator: Indicator {
    var isAnimating = false
    var runs = 0
    nonisolated init() {}
    func startAnimatingView() { isAnimating = true; runs += 1 }
    func stopAnimatingView() { isAnimating = false }
}

/// Article 000 §7.13: a custom provider.
struct MyImageDataProvider: ImageDataProvider {
    var cacheKey: String { "my_\(id)" }
    let id: String
    func data(handler: @escaping @Sendable (Result<Data, Error>) -> Void) {
        handler(.success(ViewKit.png(6)))
    }
}

/// Article 000 §7.9: the request modifier.
struct AuthModifier: ImageDownloadRequestModifier {
    let token: String
    func modified(for request: URLRequest) -> URLRequest? {
        var r = request
        r.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        r.setValue("image/webp,image/*,*/*;q=0.8", forHTTPHeaderField: "Accept")
        return r
    }
}

/// Stands in for `UIProgressView`.
@MainActor final class ProgressViewStandIn {
    var progress: Float = 0
    var isHidden = true
    nonisolated init() {}
}

/// Article 000 §7.6: the list cell, with the image view and progress view replaced.
@MainActor final class PhotoCell {
    let photoImageView = TestImageView()
    var progress: [Float] = []
    var progressHidden = true
    var failed = false
    let placeholder = TestImages.gradient(width: 9, height: 9)

    func prepareForReuse() {
        photoImageView.kf.cancelDownloadTask()
        photoImageView.image = nil
        progress = []
        progressHidden = true
    }

    func configure(with url: URL, extra: KingfisherOptionsInfo) {
        let size = CGSize(width: 4, height: 4)
        let processor = DownsamplingImageProcessor(size: size.width == 0 ? CGSize(width: 120, height: 120) : size)
        photoImageView.kf.setImage(
            with: url,
            placeholder: placeholder,
            options: [.processor(processor), .scaleFactor(2)] + extra,
            progressBlock: { [weak self] received, total in
                guard total > 0 else { return }
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        self?.progressHidden = false
                        self?.progress.append(Float(received) / Float(total))
                    }
                }
            },
            completionHandler: { [weak self] result in
                self?.progressHidden = true
                if case .failure = result { self?.failed = true }
            }
        )
    }
}

@Suite @MainActor struct SeedSnippetTests {
    @Test func basicLoadsWithProcessors() async throws {
        try await ViewKit.run { env in
            env.server.route("/a.png", .ok(ViewKit.png(19)))
            let url = env.server.url("/a.png")
            let imageView = TestImageView()
            // 000 §7.1
            let processor = RoundCornerImageProcessor(cornerRadius: 20)
            imageView.kf.setImage(with: url, options: [.processor(processor)] + env.options)
            await imageView.waitForImage { $0?.pixelWidth == 20 }
            #expect(env.cache.retrieveImageInMemoryCache(forKey: url.cacheKey, options: KingfisherParsedOptionsInfo([.processor(processor)])) != nil)

            // 000 §7.2: a thumbnail by downsampling.
            let size = CGSize(width: 10, height: 10)
            let thumb = DownsamplingImageProcessor(size: size)
            imageView.kf.setImage(with: url, options: [.processor(thumb)] + env.options)
            await imageView.waitForImage { ($0?.pixelWidth ?? 99) <= 10 }

            // 000 §7.3 and §3.4: a chain, cached as PNG under the chain's identifier.
            let chained = BlurImageProcessor(blurRadius: 4) |> RoundCornerImageProcessor(cornerRadius: 20)
            imageView.kf.setImage(with: url, options: [
                .processor(chained),
                .cacheSerializer(FormatIndicatedCacheSerializer.png)
            ] + env.options)
            await imageView.waitForImage { $0?.pixelWidth == 20 && env.cache.retrieveImageInMemoryCache(
                forKey: url.cacheKey, options: KingfisherParsedOptionsInfo([.processor(chained)])) != nil }
            // 001 and 002: the one-liner and its Source form.
            let imgUrl = url
            let other = TestImageView()
            other.kf.setImage(with: imgUrl)
            #expect(other.kf.taskIdentifier != nil)
            other.kf.cancelDownloadTask()
            imageView.kf.setImage(with: .network(url), options: env.options)
            await imageView.waitForImage { $0?.pixelWidth == 20 }
        }
    }

    @Test func cellReuseShowsOnlyTheLastURL() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/old.png", .held(DownloaderKit.bigPNG, gate: gate))
            env.server.route("/new.png", .ok(DownloaderKit.bigPNG))
            let cell = PhotoCell()
            cell.configure(with: env.server.url("/old.png"), extra: env.options)
            #expect(cell.photoImageView.image == cell.placeholder)
            await env.server.waitUntilRequestCount(for: "/old.png", reaches: 1)
            cell.prepareForReuse()
            #expect(cell.photoImageView.image == nil)
            cell.configure(with: env.server.url("/new.png"), extra: env.options)
            await cell.photoImageView.waitForImage { $0?.pixelWidth == 8 }
            gate.open()
            #expect(cell.progressHidden)
            #expect(cell.photoImageView.image?.scale == 2)
            #expect(!cell.progress.isEmpty)
            // The request cancelled in prepareForReuse reported its failure to the cell.
            #expect(cell.failed)
        }
    }

    @Test func placeholderProgressAndFade() async throws {
        try await ViewKit.run { env in
            env.server.route("/f.png", .ok(DownloaderKit.bigPNG))
            let url = env.server.url("/f.png")
            let imageView = TestImageView()
            imageView.drivesTransitions = true
            let progressView = ProgressViewStandIn()
            let done = Recorder<Int>()
            // 000 §7.8, with `.retryFailed` (not a Kingfisher option) left out.
            imageView.kf.setImage(
                with: url,
                placeholder: TestImages.gradient(width: 1, height: 1),
                options: [
                    .transition(ImageTransition.fade(0.3)),
                ] + env.options,
                progressBlock: { [weak progressView] received, total in
                    guard total > 0 else { return }
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated {
                            progressView?.progress = Float(received) / Float(total)
                            progressView?.isHidden = false
                        }
                    }
                },
                completionHandler: { [weak progressView] result in
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated { progressView?.isHidden = true }
                    }
                    if case .failure = result { Issue.record("load failed") }
                    done.record(1)
                }
            )
            await imageView.waitForImage { $0?.pixelWidth == 200 }
            let fade = try #require(imageView.timelines.first)
            #expect(fade.effect == .crossDissolve && fade.duration == 0.3)
            imageView.tick(to: imageView.clock + 0.3)
            _ = await done.wait(for: 1)
            // The main queue is FIFO: once this turn runs, the snippet's queued updates have run.
            await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
            #expect(progressView.isHidden)
            #expect(progressView.progress == 1)
        }
    }

    @Test func customCacheKeysAndRequestModifier() async throws {
        try await ViewKit.run { env in
            env.server.route("/k.png", .ok(ViewKit.png(3)))
            let url = env.server.url("/k.png")
            let listImageView = TestImageView(), detailImageView = TestImageView()
            let thumbSize = CGSize(width: 2, height: 2)
            // 000 §7.9 (`ImageResource` is `KF.ImageResource` in Kingfisher 8).
            let listResource = KF.ImageResource(downloadURL: url, cacheKey: "list_\(url.absoluteString)")
            let detailResource = KF.ImageResource(downloadURL: url, cacheKey: "detail_\(url.absoluteString)")
            listImageView.kf.setImage(with: listResource, options: [.processor(DownsamplingImageProcessor(size: thumbSize))] + env.options)
            detailImageView.kf.setImage(with: detailResource, options: env.options)
            await listImageView.waitForImage { $0?.pixelWidth == 2 }
            await detailImageView.waitForImage { $0?.pixelWidth == 4 }
            #expect(env.cache.isCached(forKey: "detail_\(url.absoluteString)"))

            let userToken = "t0ken"
            let imageView = TestImageView()
            imageView.kf.setImage(with: url, options: [.requestModifier(AuthModifier(token: userToken)), .forceRefresh] + env.options)
            await imageView.waitForImage { $0?.pixelWidth == 4 }
            let last = try #require(env.server.requests(for: "/k.png").last)
            #expect(last.headers.first { $0.0.lowercased() == "authorization" }?.1 == "Bearer t0ken")
        }
    }

    @Test func dataProviders() async throws {
        try await ViewKit.run { env in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-seed-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let fileURL = folder.appendingPathComponent("avatar.png")
            try ViewKit.png(7).write(to: fileURL)
            let imageView = TestImageView()
            // 000 §7.13
            let provider = LocalFileImageDataProvider(fileURL: fileURL)
            imageView.kf.setImage(with: provider, options: env.options)
            await imageView.waitForImage { $0?.pixelWidth == 8 }

            // The article's string starts with "data:image/png;base64,"; Kingfisher's provider (and
            // ours) decodes plain base64, so the prefix is left out here.
            let base64String = ViewKit.png(4).base64EncodedString()
            let base64 = Base64ImageDataProvider(base64String: base64String, cacheKey: "custom_key")
            imageView.kf.setImage(with: base64, options: [.processor(RoundCornerImageProcessor(cornerRadius: 10))] + env.options)
            await imageView.waitForImage { $0?.pixelWidth == 5 }

            imageView.kf.setImage(with: MyImageDataProvider(id: "123"), options: env.options)
            await imageView.waitForImage { $0?.pixelWidth == 7 }
            #expect(env.cache.isCached(forKey: "my_123"))
        }
    }

    @Test func indicatorsPlaceholderViewsAndTransitions() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/i.png", .held(ViewKit.png(2), gate: gate))
            let imageView = TestImageView()
            // 000 §16: indicator types.
            imageView.kf.indicatorType = .activity
            #expect(imageView.kf.indicator is ActivityIndicator)
            imageView.kf.indicatorType = .image(imageData: ViewKit.png(0))
            #expect(imageView.kf.indicator is ImageIndicator)
            let indicator = MyIndicator()
            imageView.kf.indicatorType = .custom(indicator: indicator)
            // A placeholder view.
            let myPlaceholderView = MyPlaceholder()
            let url = env.server.url("/i.png")
            imageView.kf.setImage(with: url, placeholder: myPlaceholderView, options: env.options)
            #expect(indicator.isAnimating)
            #expect(myPlaceholderView.shownOn == [ObjectIdentifier(imageView)])
            gate.open()
            await imageView.waitForImage { $0?.pixelWidth == 3 }
            #expect(!indicator.isAnimating && indicator.runs == 1)
            #expect(myPlaceholderView.shownOn.isEmpty)

            // Every transition, forced so the memory hits play them.
            let finished = Recorder<Bool>()
            let transitions: [ImageTransition] = [
                .none, .fade(0.3), .flipFromLeft(0.3), .flipFromRight(0.3), .flipFromTop(0.3), .flipFromBottom(0.3),
                .custom(duration: 0.5, options: [.curveEaseOut, .allowUserInteraction], animations: { target, image in
                    target.setImage(image, options: KingfisherParsedOptionsInfo(nil))
                }, completion: { finished.record($0) }),
            ]
            for transition in transitions {
                imageView.kf.setImage(with: url, options: [.transition(transition), .forceTransition] + env.options)
            }
            #expect(imageView.timelines.count == 6)
            #expect(imageView.timelines.map(\.effect) == [.crossDissolve, .flip(.left), .flip(.right), .flip(.top), .flip(.bottom), .custom])
            #expect(finished.values == [true])
        }
    }
}
