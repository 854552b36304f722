import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// `NetworkRetryStrategy` against an injected monitor, and the Linux monitor's own parts.
@Suite struct NetworkRetryStrategyTests {
    /// A monitor the test switches on and off by hand.
    final class ManualMonitor: NetworkMonitoring {
        private struct State {
            var connected: Bool
            var waiting: [(timeout: TimeInterval?, callback: @Sendable (Bool) -> Void)] = []
        }
        private let state: Mutex<State>
        let observed = Recorder<TimeInterval?>()

        init(connected: Bool) {
            state = Mutex(State(connected: connected))
        }

        var isConnected: Bool { state.withLock { $0.connected } }

        func observeConnectivity(timeoutInterval: TimeInterval?, callback: @escaping @Sendable (Bool) -> Void) -> any NetworkObserver {
            state.withLock { $0.waiting.append((timeoutInterval, callback)) }
            observed.record(timeoutInterval)
            let observer = CountingObserver()
            observers.record(observer)
            return observer
        }
        /// Every observer handed out, in order.
        let observers = Recorder<CountingObserver>()

        /// Sets the state and answers every waiting observer with `connected`.
        func report(connected: Bool) {
            let waiting = state.withLock { state -> [@Sendable (Bool) -> Void] in
                state.connected = connected
                defer { state.waiting.removeAll() }
                return state.waiting.map(\.callback)
            }
            for callback in waiting { callback(connected) }
        }
    }

    /// An observer that counts its cancellations.
    final class CountingObserver: NetworkObserver {
        private let count = Mutex(0)
        var cancelCount: Int { count.withLock { $0 } }
        func cancel() { count.withLock { $0 += 1 } }
    }

    /// The decision `strategy` makes for `context`, when it makes one before returning.
    static func decide(_ strategy: NetworkRetryStrategy, _ context: RetryContext, then: @escaping @Sendable (RetryDecision) -> Void = { _ in }) -> RetryDecision? {
        let decision = Mutex<RetryDecision?>(nil)
        strategy.retry(context: context) { value in
            decision.withLock { $0 = value }
            then(value)
        }
        return decision.withLock { $0 }
    }

    static func responseFailure() -> RetryContext {
        RetryContext(url: URL(fileURLWithPath: "/x"), error: .responseError(reason: .downloadTimedOut(url: URL(fileURLWithPath: "/x"), timeout: 1)))
    }

    @Test func retriesOnceTheNetworkComesBack() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/back.png", [.status(503), .ok(DownloaderKit.png)])
            let monitor = ManualMonitor(connected: false)
            let strategy = NetworkRetryStrategy(timeoutInterval: 12, networkMonitor: monitor)
            let results = Recorder<DownloadResult>()
            _ = downloader.downloadImage(with: server.url("/back.png"), options: [.retryStrategy(strategy)]) { results.record($0) }
            #expect(await monitor.observed.wait(for: 1) == [12])
            #expect(server.requestCount(for: "/back.png") == 1)
            monitor.report(connected: true)
            let result = try #require(await results.wait(for: 1).first)
            #expect((try? result.get())?.image.pixelWidth == 16)
            #expect(server.requestCount(for: "/back.png") == 2)
        }
    }

    @Test func retriesAtOnceWhenTheNetworkIsUp() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/flaky.png", [.status(503), .ok(DownloaderKit.png)])
            let monitor = ManualMonitor(connected: true)
            let loaded = try await downloader.downloadImage(
                with: server.url("/flaky.png"), options: [.retryStrategy(NetworkRetryStrategy(networkMonitor: monitor))])
            #expect(loaded.image.pixelWidth == 16)
            #expect(server.requestCount(for: "/flaky.png") == 2)
            #expect(monitor.observed.values.isEmpty)
        }
    }

    @Test func aServerThatKeepsFailingIsAskedAtMostMaxRetryCountTimesMore() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/broken.png", .status(500))
            let monitor = ManualMonitor(connected: true)
            let strategy = NetworkRetryStrategy(maxRetryCount: 2, networkMonitor: monitor)
            await #expect {
                try await downloader.downloadImage(with: server.url("/broken.png"), options: [.retryStrategy(strategy)])
            } throws: { ($0 as? KingfisherError)?.isInvalidResponseStatusCode(500) == true }
            #expect(server.requestCount(for: "/broken.png") == 3)
        }
    }

    @Test func aReconnectionRetriesWithItsObserverInTheUserInfo() async throws {
        let monitor = ManualMonitor(connected: false)
        let context = Self.responseFailure()
        let decided = Recorder<RetryDecision>()
        #expect(Self.decide(NetworkRetryStrategy(networkMonitor: monitor), context) { decided.record($0) } == nil)
        let observer = try #require(monitor.observers.values.first)
        #expect((context.userInfo as? CountingObserver) === observer)
        monitor.report(connected: true)
        guard case .retry(let userInfo) = await decided.wait(for: 1)[0] else {
            Issue.record("the reconnection did not retry")
            return
        }
        #expect((userInfo as? CountingObserver) === observer)
        #expect(observer.cancelCount == 0)
    }

    @Test func aSecondDecisionCancelsTheFirstObserver() throws {
        let monitor = ManualMonitor(connected: false)
        let strategy = NetworkRetryStrategy(networkMonitor: monitor)
        let context = Self.responseFailure()
        #expect(Self.decide(strategy, context) == nil)
        #expect(Self.decide(strategy, context) == nil)
        let observers = monitor.observers.values
        #expect(observers.count == 2)
        #expect(observers.map(\.cancelCount) == [1, 0])
        #expect((context.userInfo as? CountingObserver) === observers.last)
    }

    @Test func stopsWhenTheWaitTimesOut() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/never.png", .status(503))
            let monitor = ManualMonitor(connected: false)
            let results = Recorder<DownloadResult>()
            _ = downloader.downloadImage(
                with: server.url("/never.png"), options: [.retryStrategy(NetworkRetryStrategy(networkMonitor: monitor))]
            ) { results.record($0) }
            #expect(await monitor.observed.wait(for: 1) == [30])
            monitor.report(connected: false)
            let result = try #require(await results.wait(for: 1).first)
            #expect(result.error?.errorCode == 2002)
            #expect(server.requestCount(for: "/never.png") == 1)
        }
    }

    @Test func aCancelledDownloadIsNeverRetried() {
        let monitor = ManualMonitor(connected: false)
        let downloader = ImageDownloader.default
        let context = RetryContext(
            url: URL(fileURLWithPath: "/x"),
            error: SessionDataTask.cancellationBeforeStart(url: URL(fileURLWithPath: "/x"), downloader: downloader))
        let decision = Mutex<RetryDecision?>(nil)
        NetworkRetryStrategy(networkMonitor: monitor).retry(context: context) { value in decision.withLock { $0 = value } }
        let stopped = decision.withLock { decision -> Bool in
            if case .stop? = decision { return true }
            return false
        }
        #expect(stopped)
        #expect(monitor.observed.values.isEmpty)
    }

    @Test func usableInterfacesAreRunningAddressedAndNotLoopback() {
        let eth = NetworkInterface(name: "eth0", isUpAndRunning: true, isLoopback: false, address: .ipv4)
        #expect(eth.isUsable)
        #expect(!NetworkInterface(name: "lo", isUpAndRunning: true, isLoopback: true, address: .ipv4).isUsable)
        #expect(!NetworkInterface(name: "eth0", isUpAndRunning: false, isLoopback: false, address: .ipv4).isUsable)
        #expect(!NetworkInterface(name: "eth0", isUpAndRunning: true, isLoopback: false, address: .ipv6(linkLocal: true)).isUsable)
        #expect(NetworkInterface(name: "eth0", isUpAndRunning: true, isLoopback: false, address: .ipv6(linkLocal: false)).isUsable)
        #expect(!NetworkInterface(name: "eth0", isUpAndRunning: true, isLoopback: false, address: .none).isUsable)
        #expect(!NetworkInterface.anyUsable([]))
        // The system's list always has the loopback interface, marked as such.
        let system = NetworkInterface.current()
        #expect(system.contains { $0.name == "lo" && $0.isLoopback })
        #expect(NetworkMonitor.default.isConnected == NetworkInterface.anyUsable(system))
    }

    @Test func anObserverEndsByItsTimeoutWhenNothingChanges() async throws {
        let monitor = NetworkMonitor(interfaces: { [] })
        #expect(!monitor.isConnected)
        let outcome = Recorder<Bool>()
        _ = monitor.observeConnectivity(timeoutInterval: 0.01) { outcome.record($0) }
        #expect(try await withWatchdog(.seconds(10)) { await outcome.wait(for: 1) } == [false])
        let cancelled = Recorder<Bool>()
        // Cancelled well before its timer; the next observer's later timer shows the first stayed silent.
        monitor.observeConnectivity(timeoutInterval: 0.5) { cancelled.record($0) }.cancel()
        _ = monitor.observeConnectivity(timeoutInterval: 1) { outcome.record($0) }
        #expect(try await withWatchdog(.seconds(10)) { await outcome.wait(for: 2) } == [false, false])
        #expect(cancelled.values.isEmpty)
    }

    /// Whether this process may create network interfaces (root with CAP_NET_ADMIN and `ip`).
    static let canChangeInterfaces: Bool = runIP(["link", "add", "kfprobe0", "type", "veth", "peer", "name", "kfprobe1"])
        && runIP(["link", "del", "kfprobe0"])

    @discardableResult
    static func runIP(_ arguments: [String]) -> Bool {
        guard let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return false }
        return (try? ChildProcess(ip, arguments).wait()) == .exited(0)
    }

    /// A real rtnetlink event (a veth pair created and removed) wakes the monitor, which then reads
    /// the interfaces again; the interface list is the test's, so the host's network is untouched.
    @Test(.enabled(if: canChangeInterfaces, "needs CAP_NET_ADMIN and iproute2"))
    func aKernelInterfaceChangeWakesTheMonitor() async throws {
        let usable = Mutex(false)
        let reads = Recorder<Bool>()
        let monitor = NetworkMonitor(interfaces: {
            let now = usable.withLock { $0 }
            reads.record(now)
            return now ? [NetworkInterface(name: "test0", isUpAndRunning: true, isLoopback: false, address: .ipv4)] : []
        })
        let outcome = Recorder<Bool>()
        let observer = monitor.observeConnectivity(timeoutInterval: nil) { outcome.record($0) }
        // The check made right after registering sees no network.
        #expect(try await withWatchdog(.seconds(10)) { await reads.wait(for: 1) } == [false])
        usable.withLock { $0 = true }
        let name = "kfnm\(getpid() % 100_000)"
        #expect(Self.runIP(["link", "add", name, "type", "veth", "peer", "name", name + "p"]))
        defer { Self.runIP(["link", "del", name]) }
        #expect(try await withWatchdog(.seconds(10)) { await outcome.wait(for: 1) } == [true])
        observer.cancel()
    }
}
