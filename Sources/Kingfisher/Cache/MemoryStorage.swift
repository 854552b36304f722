import Dispatch
import Foundation
import KingfisherSynchronization

/// The in-memory level of the cache: a strict least-recently-used store bounded by cost and count.
///
/// ``MemoryStorage/Backend`` holds the values; ``MemoryStorage/Config`` sets its limits,
/// default expiration and purge interval.
public enum MemoryStorage {
    /// A thread-safe, strictly least-recently-used store of values with a cost, each with an expiry.
    ///
    /// Reads and writes are O(1): a hash index finds the entry, a linked list kept in arrays
    /// orders entries by use. One `Mutex` guards everything, so every call sees a consistent
    /// state and `count`/`totalCost` never exceed the limits after a call returns. A read
    /// (``value(forKey:extendingExpiration:)``) makes the value the most recently used; a store
    /// evicts from the least recently used end until the new value fits both limits.
    ///
    /// Expired values are never returned. They are dropped when read, by ``removeExpired()``,
    /// and every ``Config/cleanInterval`` seconds by a Dispatch timer that holds the backend
    /// weakly and stops when the backend is released. Unlike `NSCache`, nothing is evicted
    /// behind the caller's back other than by these rules.
    public final class Backend<T: CacheCostCalculable>: Sendable {
        // The state and the hot methods are inlinable so that a caller in another module gets code
        // specialized for its `T`; unspecialized generic code runs several times slower.
        @usableFromInline
        struct State {
            @usableFromInline var config: Config
            @usableFromInline var table = LRUTable<T>()

            @inlinable
            init(config: Config) {
                self.config = config
            }
        }

        @usableFromInline let state: Mutex<State>
        /// The purge timer, replaced when a new config changes the interval; nil when off.
        private let cleaningTimer = Mutex<DispatchSourceTimer?>(nil)

        /// The limits, default expiration, purge interval and clock.
        ///
        /// Setting it applies the new limits at once, evicting the least recently used values
        /// until both fit, and restarts the purge timer when the interval changed. Values already
        /// stored keep their expiry.
        public var config: Config {
            get { state.withLock { $0.config } }
            set {
                state.withLock { state in
                    // The timer is replaced under the state lock so that concurrent setters leave
                    // the timer matching the config that won. Lock order: state, then timer.
                    if !state.config.cleanInterval.isSameInterval(as: newValue.cleanInterval) {
                        scheduleCleaning(every: newValue.cleanInterval)
                    }
                    state.config = newValue
                    Self.evict(&state, toFitCost: 0, count: 0)
                }
            }
        }

        /// A storage with these limits; it starts its purge timer right away.
        public init(config: Config) {
            state = Mutex(State(config: config))
            scheduleCleaning(every: config.cleanInterval)
        }

        deinit {
            cleaningTimer.withLock { $0?.cancel() }
        }

        /// Stores `value` as the most recently used, replacing any value under `key`.
        ///
        /// The value expires after `expiration`, or the config's when nil, counted from the
        /// config's clock. Least recently used values are evicted until both limits hold. A value
        /// that is already expired, or costs more than ``Config/totalCostLimit`` on its own, is
        /// not stored, and the value previously under `key` is removed all the same.
        @inlinable
        public func store(value: T, forKey key: String, expiration: StorageExpiration? = nil) {
            let cost = max(0, value.cacheCost)
            let hash = key.hashValue
            return state.withLock { state in
                if let slot = state.table.slot(forKey: key, hash: hash) { state.table.remove(at: slot) }
                let config = state.config
                let expiration = expiration ?? config.expiration
                guard !expiration.isExpired, cost <= config.totalCostLimit, config.countLimit > 0 else { return }
                let now = config.clock.now()
                let expiry = expiration.estimatedExpirationSince(now)
                guard expiry > now else { return }
                Self.evict(&state, toFitCost: cost, count: 1)
                state.table.insert(key: key, hash: hash, value: value, cost: cost, expiry: expiry, expiration: expiration)
            }
        }

        /// The value under `key` when it has not expired, made the most recently used.
        ///
        /// `extendingExpiration` decides the new expiry: `.none` keeps it, `.cacheTime` restarts
        /// the expiration the value was stored with from now, `.expirationTime(e)` sets it to `e`
        /// from now (an `e` that is already expired returns the value one last time and drops it).
        /// An expired value is removed and gives nil.
        @inlinable
        public func value(forKey key: String, extendingExpiration: ExpirationExtending = .cacheTime) -> T? {
            let hash = key.hashValue
            return state.withLock { state in
                guard let slot = state.table.slot(forKey: key, hash: hash) else { return nil }
                let now = state.config.clock.now()
                guard state.table.hot[slot].expiry > now else {
                    state.table.remove(at: slot)
                    return nil
                }
                let value = state.table.hot[slot].value
                switch extendingExpiration {
                case .none:
                    break
                case .cacheTime:
                    let expiry = state.table.expirations[slot].estimatedExpirationSince(now)
                    state.table.hot[slot].expiry = expiry
                case .expirationTime(let expiration):
                    let expiry = expiration.estimatedExpirationSince(now)
                    guard expiry > now else {
                        state.table.remove(at: slot)
                        return value
                    }
                    state.table.hot[slot].expiry = expiry
                }
                state.table.touch(slot)
                return value
            }
        }

        /// True when a value under `key` has not expired; neither extends it nor changes the order of use.
        @inlinable
        public func isCached(forKey key: String) -> Bool {
            let hash = key.hashValue
            return state.withLock { state in
                guard let slot = state.table.slot(forKey: key, hash: hash) else { return false }
                return state.table.hot[slot].expiry > state.config.clock.now()
            }
        }

        /// Removes the value under `key`, if any.
        @inlinable
        public func remove(forKey key: String) {
            let hash = key.hashValue
            state.withLock { state in
                if let slot = state.table.slot(forKey: key, hash: hash) { state.table.remove(at: slot) }
            }
        }

        /// Removes every value and releases the storage's memory.
        public func removeAll() {
            state.withLock { $0.table.removeAll() }
        }

        /// Removes every expired value; O(number of values).
        public func removeExpired() {
            state.withLock { state in
                let now = state.config.clock.now()
                state.table.removeEntries { $0.expiry <= now }
            }
        }

        /// The number of values held, including expired ones not yet removed.
        public var count: Int {
            state.withLock { $0.table.count }
        }

        /// The sum of the costs of the values held, including expired ones not yet removed.
        public var totalCost: Int {
            state.withLock { $0.table.totalCost }
        }

        /// The summed cost of the values held: Kingfisher's name for ``totalCost``.
        public func totalCacheCost() -> Int {
            totalCost
        }

        /// The keys of the values that have not expired, a snapshot taken in O(number of values).
        public var keys: Set<String> {
            state.withLock { state in
                let now = state.config.clock.now()
                var keys = Set<String>(minimumCapacity: state.table.count)
                state.table.forEachSlot { slot in
                    if state.table.hot[slot].expiry > now { keys.insert(state.table.hot[slot].key) }
                }
                return keys
            }
        }

        /// Evicts least recently used values until `cost` more and `count` more fit the limits.
        @inlinable
        static func evict(_ state: inout State, toFitCost cost: Int, count: Int) {
            let costRoom = state.config.totalCostLimit - cost
            let countRoom = state.config.countLimit - count
            while state.table.count > countRoom || state.table.totalCost > costRoom {
                guard state.table.removeOldest() else { return }
            }
        }

        /// Replaces the purge timer by one firing every `interval` seconds, or by none.
        private func scheduleCleaning(every interval: TimeInterval) {
            cleaningTimer.withLock { timer in
                timer?.cancel()
                timer = nil
                guard interval.isFinite, interval > 0 else { return }
                // Between 1 ms (no busy loop) and 10 years (no overflow of DispatchTime).
                let nanoseconds = Int(min(max(interval, 0.001), 315_360_000) * 1_000_000_000)
                let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
                                leeway: .nanoseconds(nanoseconds / 10))
                source.setEventHandler { [weak self] in self?.removeExpired() }
                source.resume()
                timer = source
            }
        }
    }
}

private extension TimeInterval {
    /// Equality where every "no timer" interval (≤ 0, NaN, infinite) counts as the same.
    func isSameInterval(as other: TimeInterval) -> Bool {
        let off = !(isFinite && self > 0), otherOff = !(other.isFinite && other > 0)
        return off && otherOff || self == other
    }
}
