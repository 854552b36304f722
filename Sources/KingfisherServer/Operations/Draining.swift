import Dispatch
import Hummingbird
import Logging
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ImageServer {
    /// Runs `application` until SIGTERM or SIGINT, then drains it for a load balancer and stops.
    ///
    /// On the first signal ``beginDraining()`` makes `/health` answer `503 draining` while every
    /// other request is still served for `wait`, so a balancer that polls `/health` moves away
    /// before the port closes. Then the listener stops accepting, requests in flight are answered,
    /// the application's services stop (``ImageServerService`` closes the downloader) and this
    /// returns. A second signal during the wait ends the wait at once; later ones are ignored.
    /// One log line (`notice`) marks the start of the drain and one its end.
    ///
    /// While it runs the signals are caught instead of ending the process. Throws what the
    /// application throws (a port that cannot be bound, for one).
    public func run(_ application: some ApplicationProtocol, drainingFor wait: Duration, signals: [Int32] = [SIGTERM, SIGINT])
        async throws
    {
        try await run(application, alongside: [], drainingFor: wait, signals: signals)
    }

    /// Runs `application` and the `others` (a metrics listener, say) as ``run(_:drainingFor:signals:)``
    /// runs one: they drain, stop and fail together.
    public func run(
        _ application: some ApplicationProtocol, alongside others: [any Service], drainingFor wait: Duration,
        signals: [Int32] = [SIGTERM, SIGINT]
    ) async throws {
        let (events, continuation) = AsyncStream.makeStream(of: DrainEvent.self, bufferingPolicy: .bufferingNewest(8))
        let catcher = await SignalCatcher.catching(signals) { continuation.yield(.signal($0)) }
        defer {
            catcher.release()
            continuation.finish()
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application as any Service] + others, logger: logger))
        try await withThrowingTaskGroup(of: DrainOutcome.self) { tasks in
            tasks.addTask {
                try await group.run()
                return .stopped
            }
            tasks.addTask {
                let started = await self.drain(events: events, wait: wait) { continuation.yield(.waitOver) }
                await group.triggerGracefulShutdown()
                return .drained(started)
            }
            // Both tasks end: the drain's first (it triggers the shutdown), or the application's
            // on its own (a failure), which cancels the drain.
            var drain: DrainStart?
            while let outcome = try await tasks.next() {
                switch outcome {
                case .drained(let start): drain = start
                case .stopped: tasks.cancelAll()
                }
            }
            if let drain {
                let seconds = Self.format((ContinuousClock.now - drain.instant).seconds)
                let cut = drain.cutShort ? " (a second signal cut the wait short)" : ""
                logger.notice("drained after \(seconds) s\(cut): the listener is closed and every request in flight was answered")
            }
        }
    }

    /// Waits for the first signal, drains for `wait` or until the next signal, and tells when it
    /// started; `nil` when the events end (the application stopped) before any signal.
    private func drain(events: AsyncStream<DrainEvent>, wait: Duration, tick: @escaping @Sendable () -> Void) async -> DrainStart? {
        var iterator = events.makeAsyncIterator()
        var caught: Int32?
        while caught == nil, let event = await iterator.next() {
            if case .signal(let number) = event { caught = number }
        }
        guard let signal = caught else { return nil }
        let start = DrainStart(instant: .now, cutShort: false)
        beginDraining()
        logger.notice("""
            draining on \(Self.signalName(signal)): /health answers 503, requests are served \(Self.format(wait.seconds)) s more, \
            then the listener closes (a second signal closes it now)
            """)
        guard wait > .zero else { return start }
        let timer = Task {
            try? await Task.sleep(for: wait)
            if !Task.isCancelled { tick() }
        }
        defer { timer.cancel() }
        while let event = await iterator.next() {
            switch event {
            case .waitOver: return start
            case .signal: return DrainStart(instant: start.instant, cutShort: true)
            }
        }
        return start
    }

    /// `SIGTERM`, `SIGINT`, or `signal N`.
    static func signalName(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }

    /// Seconds with one decimal.
    static func format(_ seconds: Double) -> String {
        String((seconds * 10).rounded() / 10)
    }
}

/// What the drain waits on: a caught signal, or the end of its wait.
enum DrainEvent: Sendable {
    /// A signal of those caught arrived.
    case signal(Int32)
    /// The drain's wait is over.
    case waitOver
}

/// When a drain started, and whether a second signal ended its wait early.
struct DrainStart: Sendable {
    /// When the first signal arrived.
    var instant: ContinuousClock.Instant
    /// Whether a second signal ended the wait.
    var cutShort: Bool
}

/// How one task of ``ImageServer/run(_:drainingFor:signals:)`` ended.
enum DrainOutcome: Sendable {
    /// The drain's wait ended and graceful shutdown was triggered (`nil`: no signal came).
    case drained(DrainStart?)
    /// The application stopped.
    case stopped
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
