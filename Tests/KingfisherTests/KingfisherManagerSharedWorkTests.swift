import Foundation
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// The coalescing under the manager's shared disk reads, original processing and providers.
@Suite struct KingfisherManagerSharedWorkTests {
    typealias Finish = @Sendable (Result<Int, KingfisherError>) -> Void

    @Test func concurrentCallersShareOneRunAndAllGetTheResult() {
        let work = SharedWork<Int>()
        let starts = Mutex(0)
        let finisher = Mutex<Finish?>(nil)
        let results = Mutex<[Int]>([])
        for _ in 0..<3 {
            _ = work.join(key: "k", callback: { result in
                results.withLock { $0.append((try? result.get()) ?? -1) }
            }, start: { finish in
                starts.withLock { $0 += 1 }
                finisher.withLock { $0 = finish }
                return nil
            })
        }
        #expect(work.subscriberCount == 3)
        finisher.withLock { $0 }?(.success(7))
        #expect(starts.withLock { $0 } == 1)
        #expect(results.withLock { $0 } == [7, 7, 7])
        #expect(work.inFlightCount == 0)
    }

    @Test func theWorkIsCancelledOnlyWhenItsLastCallerLeaves() {
        let work = SharedWork<Int>()
        let cancels = Mutex(0)
        let delivered = Mutex(0)
        let subscriptions = (0..<2).map { _ in
            work.join(key: "k", callback: { _ in delivered.withLock { $0 += 1 } }, start: { _ in
                { cancels.withLock { $0 += 1 } }
            })
        }
        subscriptions[0].cancel()
        #expect(cancels.withLock { $0 } == 0)
        subscriptions[1].cancel()
        subscriptions[1].cancel()
        #expect(cancels.withLock { $0 } == 1)
        #expect(delivered.withLock { $0 } == 0)
        #expect(work.inFlightCount == 0)
    }

    @Test func aCallerLeavingWhileTheWorkStartsLeavesItRunning() {
        let work = SharedWork<Int>()
        let cancels = Mutex(0)
        let subscription = work.join(key: "k", callback: { _ in }, start: { _ in
            // A second caller joins and leaves before `start` has returned its cancel.
            work.join(key: "k", callback: { _ in }, start: { _ in nil }).cancel()
            return { cancels.withLock { $0 += 1 } }
        })
        #expect(cancels.withLock { $0 } == 0)
        subscription.cancel()
        #expect(cancels.withLock { $0 } == 1)
        #expect(work.inFlightCount == 0)
    }

    @Test func aResultDeliveredDuringStartReachesTheCaller() {
        let work = SharedWork<Int>()
        let result = Mutex<Int?>(nil)
        _ = work.join(key: "k", callback: { value in result.withLock { $0 = try? value.get() } }, start: { finish in
            finish(.success(3))
            return nil
        })
        #expect(result.withLock { $0 } == 3)
        #expect(work.inFlightCount == 0)
    }
}
