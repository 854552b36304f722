import Foundation

extension MemoryStorage {
    /// The limits and timing of a ``MemoryStorage/Backend``.
    ///
    /// Limits are taken literally: a `totalCostLimit` of 0 holds only values of cost 0, a
    /// `countLimit` of 0 holds nothing. Changing the config of a live backend applies the new
    /// limits at once; the new `expiration` applies to values stored from then on.
    public struct Config: Sendable {
        /// The largest sum of ``CacheCostCalculable/cacheCost`` the storage holds.
        ///
        /// Storing past it evicts the least recently used values; a single value costing more
        /// than this is not stored at all.
        public var totalCostLimit: Int

        /// The largest number of values the storage holds; storing past it evicts the least
        /// recently used value.
        public var countLimit: Int = .max

        /// The expiration of a value stored without one of its own.
        public var expiration: StorageExpiration = .seconds(300)

        /// Seconds between two automatic purges of expired values.
        ///
        /// A Dispatch timer does the purge; 0, a negative or a non-finite interval turns it off
        /// (expired values are still never returned, and are dropped when read).
        public let cleanInterval: TimeInterval

        /// The source of "now" for every expiry decision; tests inject one to move time by hand.
        ///
        /// The clock is read with the storage's lock held, so it must not call into the storage.
        public var clock: CacheClock = .system

        /// Kingfisher's switch for keeping values when an app moves to the background.
        ///
        /// Has no effect on Linux: no process is sent to the background, and the storage never
        /// empties itself for that reason, so every value stays as if this were `true`.
        public var keepWhenEnteringBackground: Bool = false

        /// A config with this cost limit and purge interval, and the defaults for everything else.
        public init(totalCostLimit: Int, cleanInterval: TimeInterval = 120) {
            self.totalCostLimit = totalCostLimit
            self.cleanInterval = cleanInterval
        }

        /// A quarter of the memory this process may use (its cgroup limit when it runs in a
        /// container, else physical memory).
        public static var defaultTotalCostLimit: Int {
            Int(clamping: ProcessMemory.available / 4)
        }
    }
}
