import Foundation
import Synchronization
import Testing
@testable import Kingfisher

/// A value with a chosen cost.
struct CostItem: CacheCostCalculable, Equatable {
    var id: Int
    var cacheCost: Int
}

@Suite struct MemoryStorageTests {
    let time = ManualClock(Date(timeIntervalSinceReferenceDate: 700_000_000))

    func backend(costLimit: Int = 1_000, countLimit: Int = .max, expiration: StorageExpiration = .seconds(300),
                 cleanInterval: TimeInterval = 0) -> MemoryStorage.Backend<CostItem> {
        var config = MemoryStorage.Config(totalCostLimit: costLimit, cleanInterval: cleanInterval)
        config.countLimit = countLimit
        config.expiration = expiration
        config.clock = time.clock
        return MemoryStorage.Backend(config: config)
    }

    /// Polls `condition` until it holds or `seconds` pass; a watchdog, not a timing assumption.
    func eventually(within seconds: TimeInterval = 10, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    // MARK: LRU

    @Test func costLimitEvictsTheLeastRecentlyUsed() {
        let storage = backend(costLimit: 100)
        storage.store(value: CostItem(id: 1, cacheCost: 40), forKey: "a")
        storage.store(value: CostItem(id: 2, cacheCost: 40), forKey: "b")
        #expect(storage.value(forKey: "a")?.id == 1)  // touching "a" protects it
        storage.store(value: CostItem(id: 3, cacheCost: 40), forKey: "c")
        #expect(storage.keys == ["a", "c"])
        #expect(storage.totalCost == 80 && storage.count == 2)
        storage.store(value: CostItem(id: 4, cacheCost: 90), forKey: "d")  // needs both others gone
        #expect(storage.keys == ["d"] && storage.totalCost == 90)
    }

    @Test func countLimitEvictsTheLeastRecentlyUsed() {
        let storage = backend(countLimit: 3)
        for key in ["a", "b", "c"] { storage.store(value: CostItem(id: 0, cacheCost: 1), forKey: key) }
        _ = storage.value(forKey: "a")
        storage.store(value: CostItem(id: 0, cacheCost: 1), forKey: "d")
        #expect(storage.keys == ["a", "c", "d"])
        storage.store(value: CostItem(id: 0, cacheCost: 1), forKey: "e")
        #expect(storage.keys == ["a", "d", "e"])
        #expect(storage.count == 3)
    }

    @Test func storingAnExistingKeyReplacesItAndMakesItNewest() {
        let storage = backend(costLimit: 100)
        storage.store(value: CostItem(id: 1, cacheCost: 10), forKey: "a")
        storage.store(value: CostItem(id: 2, cacheCost: 10), forKey: "b")
        storage.store(value: CostItem(id: 3, cacheCost: 50), forKey: "a")
        #expect(storage.count == 2 && storage.totalCost == 60)
        #expect(storage.value(forKey: "a", extendingExpiration: .none) == CostItem(id: 3, cacheCost: 50))
        storage.store(value: CostItem(id: 4, cacheCost: 45), forKey: "c")  // evicts "b", the oldest
        #expect(storage.keys == ["a", "c"])
    }

    @Test func aValueCostingMoreThanTheLimitIsNotStored() {
        let storage = backend(costLimit: 100)
        storage.store(value: CostItem(id: 1, cacheCost: 10), forKey: "a")
        storage.store(value: CostItem(id: 2, cacheCost: 10), forKey: "b")
        storage.store(value: CostItem(id: 3, cacheCost: 101), forKey: "c")
        #expect(storage.keys == ["a", "b"])  // nothing evicted for it
        storage.store(value: CostItem(id: 4, cacheCost: 101), forKey: "a")  // the old "a" goes
        #expect(storage.keys == ["b"] && storage.totalCost == 10)
        storage.store(value: CostItem(id: 5, cacheCost: 100), forKey: "c")  // exactly the limit fits
        #expect(storage.keys == ["c"] && storage.totalCost == 100)
    }

    @Test func negativeCostsCountAsZeroAndZeroCountLimitHoldsNothing() {
        let storage = backend(costLimit: 0)
        storage.store(value: CostItem(id: 1, cacheCost: -50), forKey: "a")
        #expect(storage.totalCost == 0 && storage.count == 1)
        let none = backend(countLimit: 0)
        none.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a")
        #expect(none.count == 0 && none.value(forKey: "a") == nil)
    }

    @Test func changingTheConfigEvictsAtOnce() {
        let storage = backend(costLimit: 1_000)
        for index in 0..<10 { storage.store(value: CostItem(id: index, cacheCost: 10), forKey: "\(index)") }
        _ = storage.value(forKey: "0")
        var config = storage.config
        config.totalCostLimit = 35
        storage.config = config
        #expect(storage.keys == ["0", "9", "8"] && storage.totalCost == 30)
        config.countLimit = 1
        storage.config = config
        #expect(storage.keys == ["0"])
        #expect(storage.config.countLimit == 1 && storage.config.totalCostLimit == 35)
    }

    @Test func removeAndRemoveAll() {
        let storage = backend()
        for index in 0..<5 { storage.store(value: CostItem(id: index, cacheCost: 3), forKey: "\(index)") }
        storage.remove(forKey: "2")
        storage.remove(forKey: "missing")
        #expect(storage.count == 4 && storage.totalCost == 12 && !storage.isCached(forKey: "2"))
        storage.removeAll()
        #expect(storage.count == 0 && storage.totalCost == 0 && storage.keys.isEmpty)
        storage.store(value: CostItem(id: 9, cacheCost: 3), forKey: "again")  // usable after clearing
        #expect(storage.value(forKey: "again")?.id == 9)
    }

    // MARK: Expiration

    @Test(arguments: [
        (StorageExpiration.never, 1e9, true),
        (.seconds(10), 9.9, true), (.seconds(10), 10, false),
        (.days(1), 86_399, true), (.days(1), 86_400, false),
        (.date(Date(timeIntervalSinceReferenceDate: 700_000_050)), 49, true),
        (.date(Date(timeIntervalSinceReferenceDate: 700_000_050)), 50, false),
    ])
    func eachExpirationCase(expiration: StorageExpiration, after seconds: TimeInterval, cached: Bool) {
        let storage = backend()
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: expiration)
        #expect(storage.isCached(forKey: "a"))
        time.advance(by: seconds)
        #expect(storage.isCached(forKey: "a") == cached)
        #expect((storage.value(forKey: "a", extendingExpiration: .none) != nil) == cached)
        #expect(storage.count == (cached ? 1 : 0))  // an expired read removes the value
    }

    @Test(arguments: [StorageExpiration.expired, .seconds(0), .seconds(-1), .seconds(.nan), .days(0),
                      .date(Date(timeIntervalSinceReferenceDate: 699_999_999))])
    func anAlreadyExpiredValueIsNotStoredAndRemovesTheOldOne(expiration: StorageExpiration) {
        let storage = backend()
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a")
        storage.store(value: CostItem(id: 2, cacheCost: 1), forKey: "a", expiration: expiration)
        #expect(storage.count == 0 && storage.value(forKey: "a") == nil)
    }

    @Test func theConfigExpirationIsTheDefault() {
        let storage = backend(expiration: .seconds(5))
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a")
        time.advance(by: 4)
        #expect(storage.isCached(forKey: "a"))
        time.advance(by: 1)
        #expect(!storage.isCached(forKey: "a"))
    }

    @Test func extendingNoneKeepsTheExpiry() {
        let storage = backend()
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(10))
        time.advance(by: 8)
        #expect(storage.value(forKey: "a", extendingExpiration: .none) != nil)
        time.advance(by: 3)
        #expect(storage.value(forKey: "a") == nil)
    }

    @Test func extendingCacheTimeRestartsTheValuesOwnExpiration() {
        let storage = backend(expiration: .seconds(300))
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(10))
        time.advance(by: 8)
        #expect(storage.value(forKey: "a", extendingExpiration: .cacheTime) != nil)
        time.advance(by: 9)  // 17 s after the store, 9 s after the read
        #expect(storage.isCached(forKey: "a"))
        time.advance(by: 1)  // 10 s after the read: its own 10 s, not the config's 300 s
        #expect(!storage.isCached(forKey: "a"))
    }

    @Test func extendingToAnExpirationTimeCountsItFromTheRead() {
        let storage = backend()
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(10))
        time.advance(by: 8)
        #expect(storage.value(forKey: "a", extendingExpiration: .expirationTime(.seconds(100))) != nil)
        time.advance(by: 99)
        #expect(storage.isCached(forKey: "a"))
        #expect(storage.value(forKey: "a", extendingExpiration: .expirationTime(.never)) != nil)
        time.advance(by: 1e8)
        #expect(storage.isCached(forKey: "a"))
        #expect(storage.value(forKey: "a", extendingExpiration: .expirationTime(.expired))?.id == 1)  // one last time
        #expect(!storage.isCached(forKey: "a") && storage.count == 0)
    }

    @Test func isCachedNeitherExtendsNorReorders() {
        let storage = backend(countLimit: 2)
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(10))
        storage.store(value: CostItem(id: 2, cacheCost: 1), forKey: "b")
        time.advance(by: 8)
        #expect(storage.isCached(forKey: "a"))
        time.advance(by: 2)
        #expect(!storage.isCached(forKey: "a"))
        #expect(storage.count == 2)  // not removed by isCached either
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "c")
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "d", expiration: .seconds(10))
        #expect(storage.isCached(forKey: "c"))
        storage.store(value: CostItem(id: 3, cacheCost: 1), forKey: "e")
        #expect(storage.keys == ["d", "e"])  // "c" stayed the oldest
    }

    @Test func removeExpiredDropsOnlyExpiredValues() {
        let storage = backend()
        storage.store(value: CostItem(id: 1, cacheCost: 5), forKey: "short", expiration: .seconds(10))
        storage.store(value: CostItem(id: 2, cacheCost: 7), forKey: "long", expiration: .seconds(100))
        storage.store(value: CostItem(id: 3, cacheCost: 11), forKey: "never", expiration: .never)
        storage.store(value: CostItem(id: 4, cacheCost: 13), forKey: "short2", expiration: .seconds(20))
        time.advance(by: 50)
        #expect(storage.count == 4 && storage.keys == ["long", "never"])  // keys are live keys only
        storage.removeExpired()
        #expect(storage.count == 2 && storage.totalCost == 18)
        #expect(storage.value(forKey: "long")?.id == 2 && storage.value(forKey: "never")?.id == 3)
    }

    // MARK: Timer and concurrency

    @Test func theCleaningTimerRemovesExpiredValues() async throws {
        let storage = backend(cleanInterval: 0.05)
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(1))
        storage.store(value: CostItem(id: 2, cacheCost: 1), forKey: "b", expiration: .never)
        time.advance(by: 2)
        #expect(try await eventually { storage.count == 1 })
        #expect(storage.keys == ["b"])
    }

    @Test func aNewConfigStartsTheTimer() async throws {
        let storage = backend(cleanInterval: 0)
        storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a", expiration: .seconds(1))
        time.advance(by: 2)
        var config = MemoryStorage.Config(totalCostLimit: 1_000, cleanInterval: 0.05)
        config.clock = time.clock
        storage.config = config
        #expect(try await eventually { storage.count == 0 })
    }

    @Test(arguments: [0.01, 0, -1, .nan, .infinity, 1e300])
    func theTimerDoesNotKeepTheBackendAlive(interval: TimeInterval) async throws {
        weak var released: MemoryStorage.Backend<CostItem>?
        do {
            let storage = backend(cleanInterval: interval)
            storage.store(value: CostItem(id: 1, cacheCost: 1), forKey: "a")
            released = storage
            #expect(released != nil)
        }
        // The timer's handler may hold the backend for the length of one purge.
        #expect(try await eventually { released == nil })
    }

    @Test func concurrentStoresAndReadsKeepTheLimits() async {
        let storage = backend(costLimit: 500, countLimit: 40)
        await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var withinLimits = true
                    for step in 0..<3_000 {
                        let key = "k\(Int.random(in: 0..<120, using: &generator))"
                        switch step % 5 {
                        case 0, 1: storage.store(value: CostItem(id: worker, cacheCost: .random(in: 1...30, using: &generator)), forKey: key)
                        case 2: _ = storage.value(forKey: key)
                        case 3: _ = storage.isCached(forKey: key)
                        default: if step % 50 == 4 { storage.remove(forKey: key) } else { _ = storage.keys.count }
                        }
                        if storage.count > 40 || storage.totalCost > 500 { withinLimits = false }
                    }
                    return withinLimits
                }
            }
            for await withinLimits in group { #expect(withinLimits) }
        }
        let keys = storage.keys
        let costs = keys.compactMap { storage.value(forKey: $0, extendingExpiration: .none)?.cacheCost }
        #expect(costs.count == keys.count && keys.count == storage.count)
        #expect(costs.reduce(0, +) == storage.totalCost)
    }
}
