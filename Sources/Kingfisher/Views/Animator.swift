import Foundation
import KingfisherSynchronization

/// Told when an ``Animator`` finishes a loop and when it stops for good.
public protocol AnimatorDelegate: AnyObject, Sendable {
    /// The animation played `count` loops in all so far.
    func animator(_ animator: Animator, didPlayAnimationLoops count: UInt)
    /// The animation played its last loop (never called for ``Animator/RepeatCount/infinite``).
    func animatorDidFinishAnimating(_ animator: Animator)
}

/// Plays an animation from an ``ImageFrameSource`` while holding only a small window of decoded
/// frames: the current one and up to `maxFrameCount - 1` ahead of it, decoded on a background
/// queue as playback moves on. Headless: a toolkit calls ``tick(at:)`` from its frame clock (a
/// test from its own clock) and draws ``currentFrameImage``.
///
/// Time accumulates between ticks, at most one second per tick (a window that was hidden does not
/// race through the frames it missed), and the leftover carries to the next frame so timing errors
/// do not add up. A frame whose time has come but that is not decoded yet is late: the animator
/// stays on the frame it shows (counted in ``lateFrameCount``) and moves on once it is ready.
public final class Animator: Sendable {
    /// How many times the animation plays.
    public enum RepeatCount: Sendable, Equatable {
        /// One loop.
        case once
        /// `count` loops.
        case finite(count: UInt)
        /// Forever.
        case infinite
    }

    private struct State {
        var current = 0
        var window: [Int: ImageFrame] = [:]
        var accumulated: TimeInterval = 0
        var lastTick: TimeInterval?
        var loops: UInt = 0
        var finished = false
        var loading = false
        var late = 0
        var peak = 0
        var error: KingfisherError?
        /// A frame that could not be decoded, and why: playback stops when it comes due.
        var failure: (index: Int, error: KingfisherError)?
        var waiters: [CheckedContinuation<Void, Never>] = []
        weak var delegate: (any AnimatorDelegate)?
    }

    /// The frames played.
    public let frameSource: any ImageFrameSource
    /// The most decoded frames held at once (the current one included); Kingfisher's
    /// `framePreloadCount`.
    public let maxFrameCount: Int
    /// How many loops to play.
    public let repeatCount: RepeatCount
    /// When set, frames are decoded no larger than this many pixels (aspect kept).
    public let maxPixelSize: CGSize?
    /// The scale given to ``currentFrameImage``.
    public let scale: CGFloat
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "com.onevcat.Kingfisher.Animator", qos: .userInitiated)

    /// An animator over `frameSource` that keeps at most `maxFrameCount` decoded frames (at least
    /// 1), plays `repeatCount` loops, and, when `maxPixelSize` is given, decodes frames at most that
    /// large (the view's pixel size: Kingfisher's `needsPrescaling`). The window starts filling at once.
    public init(frameSource: any ImageFrameSource, maxFrameCount: Int = 10, repeatCount: RepeatCount = .infinite,
                maxPixelSize: CGSize? = nil, scale: CGFloat = 1) {
        self.frameSource = frameSource
        self.maxFrameCount = max(1, maxFrameCount)
        self.repeatCount = repeatCount
        self.maxPixelSize = maxPixelSize
        self.scale = scale
        fill()
    }

    /// Told about loops and the end; held weakly.
    public var delegate: (any AnimatorDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The index of the frame shown now.
    public var currentFrameIndex: Int { state.withLock { $0.current } }

    /// The frame shown now, once it is decoded.
    public var currentFrameImage: KFCrossPlatformImage? {
        state.withLock { state in state.window[state.current] }.map { KFCrossPlatformImage(frame: $0, scale: scale) }
    }

    /// Whether the last loop has played.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Loops played so far.
    public var loopsPlayed: UInt { state.withLock { $0.loops } }

    /// Decoded frames held now.
    public var decodedFrameCount: Int { state.withLock { $0.window.count } }

    /// The most decoded frames held at any one time so far.
    public var peakDecodedFrameCount: Int { state.withLock { $0.peak } }

    /// Times a frame was due but not decoded yet.
    public var lateFrameCount: Int { state.withLock { $0.late } }

    /// The error that stopped playback: a frame that could not be decoded, reported when that
    /// frame came due (the frames before it played). Playback is then finished.
    public var error: KingfisherError? { state.withLock { $0.error } }

    /// Returns once the window is full (or holds every frame before one that failed, or playback
    /// stopped), without polling.
    public func waitUntilPreloaded() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if isWindowFull(state) || state.finished || state.failure != nil { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves playback to `time` (seconds on the caller's clock): frames advance by their own
    /// durations, from time accumulated since the last tick (at most one second of it).
    public func tick(at time: TimeInterval) {
        var loopsPlayed: UInt?
        var finishedNow = false
        let delegate = state.withLock { state -> (any AnimatorDelegate)? in
            guard !state.finished else { return nil }
            defer { state.lastTick = time }
            guard let last = state.lastTick else { return nil }
            state.accumulated += min(max(0, time - last), 1)
            while !state.finished {
                let duration = frameSource.duration(at: state.current)
                // A nanosecond of slack: clock readings and durations are not exact in binary.
                guard state.accumulated + 1e-9 >= duration else { break }
                let next = (state.current + 1) % frameSource.frameCount
                if next == 0, let limit = loopLimit, state.loops + 1 >= limit {
                    state.loops += 1
                    loopsPlayed = state.loops
                    state.finished = true
                    finishedNow = true
                    break
                }
                if let failure = state.failure, failure.index == next {
                    state.error = failure.error
                    state.finished = true
                    finishedNow = true
                    break
                }
                guard state.window[next] != nil else {
                    state.late += 1
                    break
                }
                if next == 0 {
                    state.loops += 1
                    loopsPlayed = state.loops
                }
                state.accumulated -= duration
                // An animation that fits the window keeps every frame; a longer one lets the frame
                // it leaves go, making room ahead.
                if frameSource.frameCount > maxFrameCount { state.window[state.current] = nil }
                state.current = next
            }
            return state.delegate
        }
        if let loopsPlayed { delegate?.animator(self, didPlayAnimationLoops: loopsPlayed) }
        if finishedNow {
            delegate?.animatorDidFinishAnimating(self)
            resumeWaiters()
        }
        fill()
    }

    /// The number of loops after which playback stops; `nil` for forever.
    private var loopLimit: UInt? {
        switch repeatCount {
        case .once: return 1
        case .finite(let count): return max(1, count)
        case .infinite: return nil
        }
    }

    private func isWindowFull(_ state: State) -> Bool {
        state.window.count >= min(maxFrameCount, frameSource.frameCount)
    }

    /// Decodes the next missing frame of the window on the background queue, one at a time,
    /// until the window is full.
    private func fill() {
        let index = state.withLock { state -> Int? in
            guard !state.finished, !state.loading, !isWindowFull(state) else { return nil }
            let count = frameSource.frameCount
            for offset in 0..<min(maxFrameCount, count) {
                let index = (state.current + offset) % count
                // Nothing is decoded past a frame that failed: playback stops there.
                if index == state.failure?.index { return nil }
                if state.window[index] == nil {
                    state.loading = true
                    return index
                }
            }
            return nil
        }
        guard let index else { return }
        queue.async { [self] in
            let result = Result { try frameSource.frame(at: index, maxSize: maxPixelSize) }
            let (full, stopped) = state.withLock { state -> (Bool, Bool) in
                state.loading = false
                switch result {
                case .success(let frame):
                    // Keep it only if it is still ahead within the window.
                    let count = frameSource.frameCount
                    let distance = (index - state.current + count) % count
                    if distance < maxFrameCount { state.window[index] = frame }
                    state.peak = max(state.peak, state.window.count)
                case .failure(let error):
                    let failure = error as? KingfisherError
                        ?? .processorError(reason: .decodingFailed(format: .unknown, description: "\(error)"))
                    state.failure = (index, failure)
                    if index == state.current {
                        state.error = failure
                        state.finished = true
                    }
                }
                return (isWindowFull(state) || state.failure != nil, state.finished)
            }
            if full || stopped { resumeWaiters() }
            if stopped { state.withLock { $0.delegate }?.animatorDidFinishAnimating(self) }
            fill()
        }
    }

    private func resumeWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
