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

/// Article 002: `Placeholder` as Kingfisher declares it, `add(to imageView: KFCrossPlatformImageView)`;
/// a label placed over the image view, recorded on a board instead of drawn.
@MainActor struct LabelPlaceholder: Placeholder {
    let text: String
    let board: LabelBoard
    func add(to imageView: KFCrossPlatformImageView) {
        guard let view = imageView as? TestImageView else { return }
        board.labels[ObjectIdentifier(view)] = text
    }
    func remove(from imageView: KFCrossPlatformImageView) {
        board.labels[ObjectIdentifier(imageView)] = nil
    }
}

/// The labels `LabelPlaceholder` shows, by image view.
@MainActor final class LabelBoard {
    var labels: [ObjectIdentifier: String] = [:]
    nonisolated init() {}
}

/// Article 000 §9 with the article's `ImageResource`. Kingfisher 8 (and this library) keep that
/// name deprecated, so every direct use warns; the snippet sits in a deprecated witness and the
/// test calls it through this protocol, which keeps the build free of warnings.
protocol CacheKeySnippet {
    func resources(for url: URL) -> (list: KF.ImageResource, detail: KF.ImageResource)
}

struct ArticleCacheKeys: CacheKeySnippet {
    @available(*, deprecated, message: "Writes the deprecated ImageResource name on purpose.")
    func resources(for url: URL) -> (list: KF.ImageResource, detail: KF.ImageResource) {
        let listResource = ImageResource(downloadURL: url, cacheKey: "list_\(url.absoluteString)")
        let detailResource = ImageResource(downloadURL: url, cacheKey: "detail_\(url.absoluteString)")
        return (listResource, detailResource)
    }
}

/// Stands in for `UIButton`: a control whose shown images follow its state, as a toolkit's button
/// adapter draws them.
@MainActor final class TestButton: KingfisherControlStateImageSettable {
    let stateImages = ControlStateImages()
    let backgroundStateImages = ControlStateImages()
    var state: KFControlState = .normal { didSet { redraw() } }
    private(set) var shownImage: KFCrossPlatformImage?
    private(set) var shownBackground: KFCrossPlatformImage?

    nonisolated init() {}

    func attach() {
        stateImages.onChange = { [weak self] _ in self?.redraw() }
        backgroundStateImages.onChange = { [weak self] _ in self?.redraw() }
    }

    private func redraw() {
        shownImage = stateImages.image(for: state)
        shownBackground = backgroundStateImages.image(for: state)
    }
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
    var completions = 0
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
                self?.completions += 1
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
            // Both requests completed (the image is set just before the completion runs). The
            // progress bar's final state is not asserted: the snippet's progress block hops to the
            // main queue a second time, so its last report may land after the completion.
            #expect(cell.completions == 2)
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
            // 000 §7.9, spelled `ImageResource` as the article does (deprecated, see `ArticleCacheKeys`).
            let (listResource, detailResource) = (ArticleCacheKeys() as any CacheKeySnippet).resources(for: url)
            #expect(listResource.cacheKey == "list_\(url.absoluteString)" && listResource.downloadURL == url)
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

// The snippets that needed more than a UIKit type swapped: Kingfisher's cross-platform names,
// `UIImage(named:)`, `UIColor`'s named colours and `backgroundCleanExpiredDiskCache()`.
extension SeedSnippetTests {
    @Test func placeholderWrittenAgainstKFCrossPlatformImageView() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/p.png", .held(ViewKit.png(4), gate: gate))
            let board = LabelBoard()
            let imageView = TestImageView(), other = TestImageView()
            imageView.kf.setImage(with: env.server.url("/p.png"),
                                  placeholder: LabelPlaceholder(text: "Loading…", board: board), options: env.options)
            #expect(board.labels == [ObjectIdentifier(imageView): "Loading…"])
            #expect(imageView.image == nil)
            gate.open()
            await imageView.waitForImage { $0?.pixelWidth == 5 }
            #expect(board.labels.isEmpty)

            // 000 §6 and §8: an image from the app's resources as the placeholder.
            let placeholderImage = KFCrossPlatformImage(named: "seed-placeholder", in: .module)
            other.kf.setImage(with: nil as URL?, placeholder: placeholderImage, options: env.options)
            #expect(other.image?.pixelWidth == 6 && other.image?.scale == 2)
        }
    }

    @Test func imagesNamedInABundle() throws {
        let placeholder = try #require(KFCrossPlatformImage(named: "seed-placeholder", in: .module))
        // Only `seed-placeholder@2x.png` exists: 6×4 pixels at scale 2 are 3×2 points.
        #expect(placeholder.scale == 2)
        #expect(placeholder.size == CGSize(width: 3, height: 2))
        #expect(placeholder.firstFrame.pixel(x: 5, y: 3) == RGBA8(r: 0, g: 0, b: 255, a: 255))

        // Both scales exist: the plain file comes first; a suffix or an extension picks one file.
        let badge = try #require(KFCrossPlatformImage(named: "seed-badge", in: .module))
        #expect(badge.scale == 1 && badge.pixelWidth == 5 && badge.firstFrame.pixel(x: 0, y: 0)?.r == 255)
        let badge2x = try #require(KFCrossPlatformImage(named: "seed-badge@2x", in: .module))
        #expect(badge2x.scale == 2 && badge2x.pixelWidth == 10 && badge2x.size == CGSize(width: 5, height: 5))
        #expect(KFCrossPlatformImage(named: "seed-badge.png", in: .module)?.pixelWidth == 5)
        #expect(KFCrossPlatformImage(named: "seed-badge@2x.png", in: .module)?.scale == 2)
        #expect(KFCrossPlatformImage(named: "seed-badge.gif", in: .module) == nil)

        // Another extension and scale: `seed-dot@3x.gif`.
        let dot = try #require(KFCrossPlatformImage(named: "seed-dot", in: .module))
        #expect(dot.scale == 3 && dot.pixelWidth == 1)

        // Absent, undecodable or empty names give nil.
        #expect(KFCrossPlatformImage(named: "seed-absent", in: .module) == nil)
        #expect(KFCrossPlatformImage(named: "seed-broken", in: .module) == nil)
        #expect(KFCrossPlatformImage(named: "", in: .module) == nil)

        // Without a bundle the name is looked up in `Bundle.main`: the test runner's folder,
        // which holds this target's resource bundle as a subfolder.
        let bundleFolder = Bundle.module.bundleURL.standardizedFileURL
        #expect(KFCrossPlatformImage(named: "seed-placeholder") == nil)
        if bundleFolder.deletingLastPathComponent().path == Bundle.main.bundleURL.standardizedFileURL.path {
            let viaMain = KFCrossPlatformImage(named: bundleFolder.lastPathComponent + "/seed-placeholder")
            #expect(viaMain?.scale == 2 && viaMain?.pixelWidth == 6)
        }
    }

    @Test func uiColorNamesHaveUIKitComponents() throws {
        let expected: [(KFCrossPlatformColor, [CGFloat])] = [
            (.black, [0, 0, 0, 1]), (.darkGray, [1.0 / 3, 1.0 / 3, 1.0 / 3, 1]),
            (.lightGray, [2.0 / 3, 2.0 / 3, 2.0 / 3, 1]), (.white, [1, 1, 1, 1]), (.gray, [0.5, 0.5, 0.5, 1]),
            (.red, [1, 0, 0, 1]), (.green, [0, 1, 0, 1]), (.blue, [0, 0, 1, 1]), (.cyan, [0, 1, 1, 1]),
            (.yellow, [1, 1, 0, 1]), (.magenta, [1, 0, 1, 1]), (.orange, [1, 0.5, 0, 1]),
            (.purple, [0.5, 0, 0.5, 1]), (.brown, [0.6, 0.4, 0.2, 1]), (.clear, [0, 0, 0, 0]),
        ]
        for (color, components) in expected {
            let actual = [color.red, color.green, color.blue, color.alpha]
            #expect(zip(actual, components).allSatisfy { abs($0 - $1) < 1e-9 }, "\(color) is \(actual)")
        }
        #expect(KFCrossPlatformColor.gray.hex == "#808080FF")

        // 000 §11 strokes a grey border; the library's border processor draws it with `.gray`.
        let processor = BorderImageProcessor(border: Border(color: .gray, lineWidth: 2))
        let image = try #require(processor.process(item: .image(TestImages.solid(width: 8, height: 8, RGBA8(r: 255, g: 0, b: 0, a: 255))),
                                                   options: KingfisherParsedOptionsInfo(nil)))
        #expect(image.firstFrame.pixel(x: 0, y: 4) == RGBA8(r: 128, g: 128, b: 128, a: 255))
        #expect(image.firstFrame.pixel(x: 4, y: 4) == RGBA8(r: 255, g: 0, b: 0, a: 255))
    }

    @Test func backgroundCleanRemovesExpiredEntriesOffTheCallersThread() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-seed-clean-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = ManualClock()
        var disk = DiskStorage.Config(name: "seed", sizeLimit: 0, directory: folder)
        disk.clock = clock.clock
        var memory = MemoryStorage.Config(totalCostLimit: 1 << 20, cleanInterval: 0)
        memory.clock = clock.clock
        let cache = ImageCache(memoryStorage: MemoryStorage.Backend(config: memory),
                               diskStorage: try DiskStorage.Backend(config: disk))
        let image = TestImages.gradient(width: 4, height: 4)
        try await cache.store(image, forKey: "short", options: KingfisherParsedOptionsInfo([.diskCacheExpiration(.seconds(60))]))
        try await cache.store(image, forKey: "long", options: KingfisherParsedOptionsInfo([.diskCacheExpiration(.days(2))]))
        let shortFile = cache.cachePath(forKey: "short"), longFile = cache.cachePath(forKey: "long")
        #expect(FileManager.default.fileExists(atPath: shortFile))
        clock.advance(by: 120)

        let cleaned = Recorder<[String]>()
        let observer = NotificationCenter.default.addObserver(forName: .KingfisherDidCleanDiskCache, object: cache, queue: nil) {
            cleaned.record($0.userInfo?[KingfisherDiskCacheCleanedHashKey] as? [String] ?? [])
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        // Hold the cache's I/O queue: the call returns with the entry still there, so the cleaning
        // runs later on that queue, not in the call on the caller's thread.
        let held = DispatchSemaphore(value: 0)
        cache.ioQueue.async { held.wait() }
        // 001 and 003: what an app calls when it moves to the background.
        cache.backgroundCleanExpiredDiskCache()
        #expect(FileManager.default.fileExists(atPath: shortFile))
        #expect(cleaned.values.isEmpty)
        held.signal()
        let removed = try #require(await cleaned.wait(for: 1).first)
        #expect(removed == [cache.hash(forKey: "short")])
        #expect(!FileManager.default.fileExists(atPath: shortFile))
        #expect(FileManager.default.fileExists(atPath: longFile))
    }

    @Test func buttonImagesPerState() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/first.png", .held(ViewKit.png(2), gate: gate))
            env.server.route("/normal.png", .ok(ViewKit.png(9)))
            env.server.route("/pressed.png", .ok(ViewKit.png(4)))
            env.server.route("/back.png", .ok(ViewKit.png(6)))
            let button = TestButton()
            button.attach()
            let url = env.server.url("/first.png"), highlightedURL = env.server.url("/pressed.png")
            let backgroundURL = env.server.url("/back.png")
            let results = Recorder<String>()
            // 000 §7, with the test's cache and downloader added to each call's options.
            let placeholder = KFCrossPlatformImage(named: "seed-placeholder", in: .module)
            button.kf.setImage(with: url, for: .normal, placeholder: placeholder, options: env.options) { result in
                results.record(result.notCurrent != nil ? "first superseded" : "first finished")
            }
            #expect(button.shownImage == placeholder && button.shownImage != nil)
            button.kf.setImage(with: highlightedURL, for: .highlighted, options: env.options) { _ in results.record("highlighted finished") }
            button.kf.setBackgroundImage(with: backgroundURL, for: .normal, options: env.options) { _ in results.record("background finished") }

            let processor = RoundCornerImageProcessor(cornerRadius: 8)
            button.kf.setImage(
                with: env.server.url("/normal.png"),
                for: .normal,
                placeholder: nil,
                options: [.processor(processor), .cacheSerializer(FormatIndicatedCacheSerializer.png)] + env.options,
                completionHandler: { result in
                    if case .failure = result { print("加载失败") }
                    results.record("second finished")
                }
            )
            gate.open()
            // Each state's request is its own: only the earlier normal-state request is superseded.
            #expect(Set(await results.wait(for: 4)) == ["first superseded", "second finished", "highlighted finished", "background finished"])
            #expect(button.shownImage?.pixelWidth == 10)
            #expect(button.shownBackground?.pixelWidth == 7)
            button.state = .highlighted
            #expect(button.shownImage?.pixelWidth == 5)
            #expect(button.shownBackground?.pixelWidth == 7, "no highlighted background: the normal one")
            button.state = [.highlighted, .focused]
            #expect(button.shownImage?.pixelWidth == 5, "focus alone does not hide the highlighted image")
            button.state = .disabled
            #expect(button.shownImage?.pixelWidth == 10)
            #expect(button.kf.taskIdentifier(for: .normal) == nil && button.kf.taskIdentifier(for: .selected) == nil)
        }
    }
}
