import Foundation
import KingfisherSynchronization
@testable import Kingfisher

/// A clock the test moves by hand, for the caches' expiry and recency.
final class ManualClock: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        date = Mutex(start)
    }

    var now: Date { date.withLock { $0 } }
    var clock: CacheClock { CacheClock { self.now } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0.addTimeInterval(seconds) }
    }
}
