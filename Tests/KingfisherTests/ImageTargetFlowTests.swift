import Foundation
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

@Suite @MainActor struct ImageTargetFlowTests {
    let placeholderImage = TestImages.solid(width: 5, height: 5, RGBA8(r: 9, g: 9, b: 9, a: 255))
    let failureImage = TestImages.solid(width: 7, height: 7, RGBA8(r: 200, g: 0, b: 0, a: 255))

    @Test func nilSourceShowsPlaceholderAndFailsWithEmptySource() async throws {
        let view = TestImageView()
        view.image = failureImage
        let results = Recorder<SetResult>()
        let task = view.kf.setImage(with: nil as URL?, placeholder: placeholderImage) { results.record($0) }
        #expect(task == nil)
        let result = try #require(results.values.first)
        #expect(result.error?.errorCode == 5001)
        guard case .failure(.imageSettingError(.emptySource)) = result else {
            Issue.record("expected .emptySource, got \(result)")
            return
        }
        #expect(view.image == placeholderImage)
        #expect(view.kf.taskIdentifier == nil)
        // Without a placeholder, a nil source clears the target.
        view.kf.setImage(with: nil as Source?) { _ in }
        #expect(view.image == nil)
    }

    @Test func imagePlaceholderShowsWhileLoadingThenGivesWay() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/p.png", .held(ViewKit.png(2), gate: gate))
            let view = TestImageView()
            let results = Recorder<SetResult>()
            let task = view.kf.setImage(with: env.server.url("/p.png"), placeholder: placeholderImage, options: env.options) {
                results.record($0)
            }
            #expect(task != nil)
            #expect(view.image == placeholderImage)
            #expect(view.kf.placeholder != nil)
            #expect(view.kf.taskIdentifier != nil)
            gate.open()
            _ = await results.wait(for: 1)
            #expect(view.image?.pixelWidth == 3)
            #expect(view.kf.placeholder == nil)
            #expect(view.history.map { $0?.pixelWidth } == [5, 3])
        }
    }

    @Test func viewPlaceholderIsAddedAndRemoved() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/v.png", .held(ViewKit.png(2), gate: gate))
            let view = TestImageView()
            let placeholder = ViewPlaceholder()
            let results = Recorder<SetResult>()
            view.kf.setImage(with: env.server.url("/v.png"), placeholder: placeholder, options: env.options) { results.record($0) }
            #expect(placeholder.isShown)
            gate.open()
            _ = await results.wait(for: 1)
            #expect(placeholder.added == 1 && placeholder.removed == 1)
            #expect(view.image?.pixelWidth == 3)
        }
    }

    @Test func indicatorRunsOncePerRequest() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/i.png", .held(ViewKit.png(1), gate: gate))
            let view = TestImageView()
            view.kf.indicatorType = .activity
            let activity = try #require(view.kf.indicator as? ActivityIndicator)
            #expect(view.addedIndicators.count == 1)
            let results = Recorder<SetResult>()
            view.kf.setImage(with: env.server.url("/i.png"), options: env.options) { results.record($0) }
            #expect(activity.isAnimating)
            gate.open()
            _ = await results.wait(for: 1)
            #expect(!activity.isAnimating)
            #expect(activity.activeCount == 0)

            let custom = CountingIndicator()
            view.kf.indicatorType = .custom(indicator: custom)
            #expect(view.removedIndicators.count == 1)
            view.kf.setImage(with: env.server.url("/i.png"), options: env.options) { results.record($0) }
            _ = await results.wait(for: 2)
            #expect(custom.starts == 1 && custom.stops == 1)
        }
    }

    /// An indicator written as a struct, as Kingfisher's documentation writes one: its view is
    /// a widget object it drives.
    struct StructIndicator: Indicator {
        final class Widget {
            var visibleChanges: [Bool] = []
        }
        let widget = Widget()
        var view: AnyObject? { widget }
        func startAnimatingView() { widget.visibleChanges.append(true) }
        func stopAnimatingView() { widget.visibleChanges.append(false) }
    }

    @Test func anIndicatorCanBeAStruct() async throws {
        try await ViewKit.run { env in
            env.server.route("/s.png", .ok(ViewKit.png(1)))
            let view = TestImageView()
            let indicator = StructIndicator()
            view.kf.indicatorType = .custom(indicator: indicator)
            #expect((view.kf.indicator as? StructIndicator)?.widget === indicator.widget)
            #expect(view.addedIndicators.count == 1)
            let results = Recorder<SetResult>()
            view.kf.setImage(with: env.server.url("/s.png"), options: env.options) { results.record($0) }
            _ = await results.wait(for: 1)
            #expect(indicator.widget.visibleChanges == [true, false])
        }
    }

    @Test func imageIndicatorDecodesItsData() {
        let view = TestImageView()
        view.kf.indicatorType = .image(imageData: ViewKit.png(9))
        let indicator = view.kf.indicator as? ImageIndicator
        #expect(indicator?.image.pixelWidth == 10)
        view.kf.indicatorType = .image(imageData: Data("not an image".utf8))
        #expect(view.kf.indicator == nil)
        view.kf.indicatorType = .none
        #expect(view.kf.indicator == nil)
    }

    @Test func failureImageReplacesPlaceholderOnFailure() async throws {
        try await ViewKit.run { env in
            env.server.route("/missing.png", .status(404))
            let view = TestImageView()
            let results = Recorder<SetResult>()
            view.kf.setImage(
                with: env.server.url("/missing.png"), placeholder: placeholderImage,
                options: env.options + [.onFailureImage(failureImage)]
            ) { results.record($0) }
            let result = await results.wait(for: 1)[0]
            #expect(result.error?.isInvalidResponseStatusCode(404) == true)
            #expect(view.image == failureImage)
            #expect(view.kf.placeholder == nil)

            // Without onFailureImage the placeholder stays; with `.onFailureImage(nil)` the target clears.
            view.kf.setImage(with: env.server.url("/missing.png"), placeholder: placeholderImage, options: env.options) {
                results.record($0)
            }
            _ = await results.wait(for: 2)
            #expect(view.image == placeholderImage)
            view.kf.setImage(with: env.server.url("/missing.png"), options: env.options + [.onFailureImage(nil)]) {
                results.record($0)
            }
            _ = await results.wait(for: 3)
            #expect(view.image == nil)
        }
    }

    @Test func keepCurrentImageWhileLoading() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/k.png", .held(ViewKit.png(3), gate: gate))
            let view = TestImageView()
            view.image = failureImage
            let results = Recorder<SetResult>()
            view.kf.setImage(
                with: env.server.url("/k.png"), placeholder: placeholderImage,
                options: env.options + [.keepCurrentImageWhileLoading]) { results.record($0) }
            #expect(view.image == failureImage)
            // A target showing nothing gets the placeholder all the same.
            let empty = TestImageView()
            empty.kf.setImage(
                with: env.server.url("/k.png"), placeholder: placeholderImage,
                options: env.options + [.keepCurrentImageWhileLoading]) { results.record($0) }
            #expect(empty.image == placeholderImage)
            gate.open()
            _ = await results.wait(for: 2)
            #expect(view.image?.pixelWidth == 4)
            #expect(empty.image?.pixelWidth == 4)
            #expect(view.history.map { $0?.pixelWidth } == [7, 4])
        }
    }

    @Test func transitionPlaysOnTheTargetClockForNetworkLoads() async throws {
        try await ViewKit.run { env in
            env.server.route("/t.png", .ok(ViewKit.png(2)))
            let view = TestImageView()
            view.drivesTransitions = true
            let results = Recorder<SetResult>()
            view.kf.setImage(with: env.server.url("/t.png"), placeholder: placeholderImage,
                             options: env.options + [.transition(.fade(0.4))]) { results.record($0) }
            while view.timelines.isEmpty { await Task.yield() }
            let timeline = view.timelines[0]
            #expect(timeline.effect == .crossDissolve)
            #expect(timeline.duration == 0.4)
            #expect(view.image?.pixelWidth == 3)
            #expect(results.values.isEmpty)
            view.tick(to: 100.2)
            #expect(abs(timeline.progress - 0.5) < 1e-9)
            #expect(abs(timeline.opacity - 0.5) < 1e-9)
            #expect(results.values.isEmpty)
            view.tick(to: 100.4)
            #expect(timeline.isFinished)
            #expect(results.values.count == 1)
            #expect(results.values[0].cacheType == CacheType.none)
        }
    }

    @Test func memoryHitShowsNoTransitionUnlessForced() async throws {
        try await ViewKit.run { env in
            env.server.route("/m.png", .ok(ViewKit.png(2)))
            let url = env.server.url("/m.png")
            let view = TestImageView()
            let results = Recorder<SetResult>()
            let options = env.options + [.transition(.flipFromLeft(0.3))]
            view.kf.setImage(with: url, options: options) { results.record($0) }
            _ = await results.wait(for: 1)
            #expect(view.timelines.count == 1)
            // A memory hit finishes before setImage returns, without a transition.
            view.kf.setImage(with: url, options: options) { results.record($0) }
            #expect(results.values.count == 2)
            #expect(results.values[1].cacheType == .memory)
            #expect(view.timelines.count == 1)
            view.kf.setImage(with: url, options: options + [.forceTransition]) { results.record($0) }
            #expect(results.values.count == 3)
            #expect(view.timelines.count == 2)
            #expect(view.timelines[1].effect == .flip(.left))
        }
    }

    @Test func asyncCacheTypeCheckNeverFinishesInsideSetImage() async throws {
        try await ViewKit.run { env in
            env.server.route("/c.png", .ok(ViewKit.png(2)))
            let url = env.server.url("/c.png")
            let view = TestImageView()
            let results = Recorder<SetResult>()
            view.kf.setImage(with: url, options: env.options) { results.record($0) }
            _ = await results.wait(for: 1)
            view.image = nil
            view.kf.setImage(with: url, options: env.options + [.asyncCacheTypeCheck]) { results.record($0) }
            #expect(results.values.count == 1)
            #expect(view.image == nil)
            let second = await results.wait(for: 2)[1]
            #expect(second.cacheType == .memory)
            #expect(view.image?.pixelWidth == 3)
        }
    }

    @Test func cancelDownloadTaskFailsTheRequest() async throws {
        try await ViewKit.run { env in
            env.server.route("/x.png", .never())
            let view = TestImageView()
            let indicator = CountingIndicator()
            view.kf.indicatorType = .custom(indicator: indicator)
            let results = Recorder<SetResult>()
            view.kf.setImage(with: env.server.url("/x.png"), options: env.options + [.onFailureImage(failureImage)]) {
                results.record($0)
            }
            await env.server.waitUntilRequestCount(for: "/x.png", reaches: 1)
            view.kf.cancelDownloadTask()
            let result = await results.wait(for: 1)[0]
            #expect(result.error?.isTaskCancelled == true)
            #expect(view.image == failureImage)
            #expect(indicator.running == 0)
        }
    }

    @Test func asyncSetImageReturnsTheResult() async throws {
        try await ViewKit.run { env in
            env.server.route("/as.png", .ok(ViewKit.png(5)))
            let view = TestImageView()
            let result = try await view.kf.setImageAsync(with: env.server.url("/as.png"), options: env.options)
            #expect(result.image.pixelWidth == 6)
            #expect(view.image?.pixelWidth == 6)
            await #expect(throws: KingfisherError.self) {
                try await view.kf.setImageAsync(with: nil as URL?)
            }
        }
    }

    @Test func targetWithoutStoredStateUsesTheSideTable() async throws {
        try await ViewKit.run { env in
            env.server.route("/st.png", .ok(ViewKit.png(1)))
            let view = StatelessImageView()
            #expect(view.kingfisherState === view.kingfisherState)
            let other = StatelessImageView()
            #expect(view.kingfisherState !== other.kingfisherState)
            let result = try await view.kf.setImageAsync(with: env.server.url("/st.png"), options: env.options)
            #expect(result.cacheType == CacheType.none)
            #expect(view.image?.pixelWidth == 2)
            #expect(KingfisherTargetState.sideTableCount >= 2)
        }
    }
}
