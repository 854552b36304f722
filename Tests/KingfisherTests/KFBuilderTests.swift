import Foundation
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

/// Every field of parsed options that a builder can set, as comparable text.
func fingerprint(_ options: KingfisherParsedOptionsInfo) -> [String] {
    func id(_ object: AnyObject?) -> String { object.map { "\(ObjectIdentifier($0))" } ?? "nil" }
    return [
        "scale \(options.scaleFactor)", "firstFrame \(options.onlyLoadFirstFrame)",
        "processor \(options.processor.identifier)", "serializer \(type(of: options.cacheSerializer))",
        "modifier \(options.imageModifier.map { "\(type(of: $0))" } ?? "nil")",
        "callback \(options.callbackQueue)", "memExp \(String(describing: options.memoryCacheExpiration))",
        "memExt \(options.memoryCacheAccessExtendingExpiration)", "diskExp \(String(describing: options.diskCacheExpiration))",
        "diskExt \(options.diskCacheAccessExtendingExpiration)", "memOnly \(options.cacheMemoryOnly)",
        "sync \(options.loadDiskFileSynchronously)", "memOrRefresh \(options.fromMemoryCacheOrRefresh)",
        "ext \(options.forcedExtension ?? "nil")", "write \(options.diskStoreWriteOptions.rawValue)",
        "downloader \(id(options.downloader))", "modifier? \(options.requestModifier != nil)",
        "redirect? \(options.redirectHandler != nil)", "priority \(options.downloadPriority)",
        "retry \(options.retryStrategy.map { "\(type(of: $0))" } ?? "nil")",
        "target \(id(options.targetCache))", "original \(id(options.originalCache))",
        "force \(options.forceRefresh)", "onlyCache \(options.onlyFromCache)", "wait \(options.waitForCache)",
        "bg \(options.backgroundDecode)", "preload \(options.preloadAllAnimationData)",
        "cacheOriginal \(options.cacheOriginalImage)", "processingQueue \(String(describing: options.processingQueue))",
        "alternatives \(options.alternativeSources?.map(\.description) ?? [])",
        "lowData \(options.lowDataModeSource?.description ?? "nil")",
        "keep \(options.keepCurrentImageWhileLoading)",
        "failureImage \(options.onFailureImage.map { $0?.pixelWidth.description ?? "clear" } ?? "nil")",
        "transition \(options.transition.effect) \(options.transition.duration)",
        "forceTransition \(options.forceTransition)", "prefetchMemory \(options.alsoPrefetchToMemory)",
        "asyncCheck \(options.asyncCacheTypeCheck)",
        "progressive \(options.progressiveJPEG.map { "\($0.isBlur) \($0.isFastestScan) \($0.scanInterval)" } ?? "nil")",
        "limits \(options.decodingLimits)",
    ]
}

@Suite @MainActor struct KFBuilderTests {
    @Test func builderParsesAsTheEquivalentOptionList() throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (original, folder2) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder2) }
        let alternative = Source.network(URL(string: "http://127.0.0.1:1/alt.png")!)
        let failure = TestImages.gradient(width: 3, height: 3)
        let round = RoundCornerImageProcessor(cornerRadius: 4)
        let blur = BlurImageProcessor(blurRadius: 2)
        let downsampling = DownsamplingImageProcessor(size: CGSize(width: 20, height: 20))
        let builder = KF.url(URL(string: "http://127.0.0.1:1/a.png"))
            .targetCache(cache).originalCache(original).downloader(.default)
            .downloadPriority(0.9).forceRefresh().cacheMemoryOnly().waitForCache().onlyFromCache()
            .fromMemoryCacheOrRefresh().cacheOriginalImage().loadDiskFileSynchronously()
            .scaleFactor(2).onlyLoadFirstFrame().preloadAllAnimationData().backgroundDecode()
            .callbackQueue(.mainAsync).processingQueue(.untouch)
            .memoryCacheExpiration(.seconds(30)).diskCacheExpiration(.days(2))
            .memoryCacheAccessExtending(.none).diskCacheAccessExtending(.none)
            .forcedCacheFileExtension("img").serialize(as: .PNG)
            .requestModifier { $0 }.retry(maxCount: 2, interval: .seconds(1))
            .alternativeSources([alternative]).alsoPrefetchToMemory()
            .roundCorner(radius: .point(4)).blur(radius: 2).downsampling(size: CGSize(width: 20, height: 20))
            .onFailureImage(failure).keepCurrentImageWhileLoading().fade(duration: 0.25).forceTransition()
            .asyncCacheTypeCheck().progressiveJPEG(ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: 0.1))
        let list: KingfisherOptionsInfo = [
            .targetCache(cache), .originalCache(original), .downloader(.default),
            .downloadPriority(0.9), .forceRefresh, .cacheMemoryOnly, .waitForCache, .onlyFromCache,
            .fromMemoryCacheOrRefresh, .cacheOriginalImage, .loadDiskFileSynchronously,
            .scaleFactor(2), .onlyLoadFirstFrame, .preloadAllAnimationData, .backgroundDecode,
            .callbackQueue(.mainAsync), .processingQueue(.untouch),
            .memoryCacheExpiration(.seconds(30)), .diskCacheExpiration(.days(2)),
            .memoryCacheAccessExtendingExpiration(.none), .diskCacheAccessExtendingExpiration(.none),
            .forcedCacheFileExtension("img"), .cacheSerializer(FormatIndicatedCacheSerializer.png),
            .requestModifier(AnyModifier { $0 }), .retryStrategy(DelayRetryStrategy(maxRetryCount: 2, retryInterval: .seconds(1))),
            .alternativeSources([alternative]), .alsoPrefetchToMemory,
            .processor(round |> blur |> downsampling),
            .onFailureImage(failure), .keepCurrentImageWhileLoading, .transition(.fade(0.25)), .forceTransition,
            .asyncCacheTypeCheck, .progressiveJPEG(ImageProgressive(isBlur: false, isFastestScan: true, scanInterval: 0.1)),
        ]
        let parsed = KingfisherParsedOptionsInfo(KingfisherManager.shared.defaultOptions + list)
        #expect(fingerprint(builder.options) == fingerprint(parsed))
        #expect(builder.options.processor.identifier.contains("BlurImageProcessor"))
        #expect(builder.source == .network(URL(string: "http://127.0.0.1:1/a.png")!))
    }

    @Test func defaultBuilderMatchesNoOptions() {
        #expect(fingerprint(KF.source(nil).options) == fingerprint(KingfisherParsedOptionsInfo(KingfisherManager.shared.defaultOptions)))
    }

    @Test func sourcesOfTheBuilder() {
        let url = URL(string: "https://example.com/a.png")!
        #expect(KF.url(url, cacheKey: "k").source?.cacheKey == "k")
        #expect(KF.resource(url).source == .network(url))
        #expect(KF.url(nil).source == nil)
        let data = ViewKit.png(1)
        #expect(KF.data(data, cacheKey: "raw").source?.cacheKey == "raw")
        #expect(KF.dataProvider(RawImageDataProvider(data: data, cacheKey: "p")).source?.asProvider != nil)
        #expect(KF.data(nil, cacheKey: "raw").source == nil)
    }

    @Test func setToTargetRunsCallbacksOnTheMainActor() async throws {
        try await ViewKit.run { env in
            env.server.route("/kf.png", .ok(DownloaderKit.bigPNG))
            env.server.route("/gone.png", .status(404))
            let view = TestImageView()
            let successes = Recorder<CacheType>()
            let progress = Recorder<Int64>()
            let placeholder = TestImages.gradient(width: 2, height: 2)
            KF.url(env.server.url("/kf.png"))
                .targetCache(env.cache).downloader(env.downloader)
                .placeholder(placeholder)
                .onProgress { received, _ in progress.record(received) }
                .onSuccess { successes.record($0.cacheType) }
                .onFailure { _ in Issue.record("no failure expected") }
                .set(to: view)
            #expect(view.image == placeholder)
            #expect(await successes.wait(for: 1) == [CacheType.none])
            #expect(!progress.values.isEmpty)
            #expect(view.image?.pixelWidth == 200)

            let failures = Recorder<Int>()
            KF.url(env.server.url("/gone.png")).targetCache(env.cache).downloader(env.downloader)
                .onFailureImage(placeholder)
                .onFailure { failures.record($0.errorCode) }
                .set(to: view)
            _ = await failures.wait(for: 1)
            #expect(view.image == placeholder)
        }
    }

    @Test func progressiveDescription() {
        let progressive = ImageProgressive(isBlur: true, isFastestScan: false, scanInterval: -1) { _ in .keepCurrent }
        #expect(progressive.scanInterval == 0)
        #expect(ImageProgressive.default.isBlur && ImageProgressive.default.isFastestScan)
        let parsed = KingfisherParsedOptionsInfo([.progressiveJPEG(progressive)])
        #expect(parsed.progressiveJPEG?.isFastestScan == false)
        #expect(parsed.progressiveJPEG?.onImageUpdated != nil)
    }
}

@Suite @MainActor struct ImageTransitionTimelineTests {
    func timeline(_ transition: ImageTransition, finished: Recorder<Bool>, shown: Recorder<Int>) -> ImageTransitionTimeline {
        ImageTransitionTimeline(
            transition: transition, image: TestImages.gradient(width: 1, height: 1),
            showImage: { shown.record(1) }, onFinish: { finished.record($0) })
    }

    @Test func progressRunsFromZeroToOneOverTheDuration() {
        let finished = Recorder<Bool>(), shown = Recorder<Int>()
        let line = timeline(.custom(duration: 2, options: .curveLinear, animations: nil, completion: nil), finished: finished, shown: shown)
        #expect(line.progress == 0 && !line.isStarted)
        line.start(at: 10)
        #expect(shown.values.count == 1)
        #expect(line.update(at: 9) == 0)
        #expect(line.update(at: 10.5) == 0.25)
        #expect(line.update(at: 11) == 0.5)
        #expect(finished.values.isEmpty)
        #expect(line.update(at: 12.7) == 1)
        #expect(line.isFinished && finished.values == [true])
        line.update(at: 20)
        line.cancel()
        #expect(finished.values == [true])
    }

    @Test func curvesAndEffects() {
        #expect(ImageTransitionTimeline.ease(0.5, options: .curveEaseInOut) == 0.5)
        #expect(ImageTransitionTimeline.ease(0.25, options: .curveEaseIn) == 0.0625)
        #expect(ImageTransitionTimeline.ease(0.5, options: .curveEaseOut) == 0.75)
        #expect(ImageTransitionTimeline.ease(2, options: .curveLinear) == 1)
        #expect(ImageTransition.none.duration == 0 && ImageTransition.fade(-1).duration == 0)
        #expect(ImageTransition.flipFromBottom(1).effect == .flip(.bottom))
        #expect(ImageTransition.flipFromTop(1).effect == .flip(.top))
        #expect(ImageTransition.flipFromRight(1).effect == .flip(.right))
        #expect(!ImageTransition.fade(1).applies(to: .memory, forceTransition: false))
        #expect(ImageTransition.fade(1).applies(to: .disk, forceTransition: true))
        #expect(ImageTransition.fade(1).applies(to: .none, forceTransition: false))
        #expect(!ImageTransition.none.applies(to: .none, forceTransition: true))
    }

    @Test func zeroDurationAndCancel() {
        let finished = Recorder<Bool>(), shown = Recorder<Int>()
        let instant = timeline(.fade(0), finished: finished, shown: shown)
        instant.start(at: 0)
        #expect(instant.isFinished && instant.progress == 1 && finished.values == [true])
        let cut = timeline(.fade(1), finished: finished, shown: shown)
        cut.cancel()
        #expect(cut.isFinished && finished.values == [true, false] && shown.values.count == 2)
    }
}
