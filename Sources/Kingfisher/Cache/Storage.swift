import Foundation

/// When a cached value stops being valid.
///
/// Expiration is computed from the time the value is stored or, depending on
/// ``ExpirationExtending``, last read. `.expired` stores a value that is already invalid, which
/// keeps it out of every later read.
public enum StorageExpiration: Sendable, Hashable {
    /// The value never expires.
    case never
    /// The value expires this many seconds after the reference time.
    case seconds(TimeInterval)
    /// The value expires this many days (of 86,400 s) after the reference time.
    case days(Int)
    /// The value expires at this date, whatever the reference time.
    case date(Date)
    /// The value is expired as soon as it is stored.
    case expired

    /// The expiry date of a value stored or touched at `date`.
    ///
    /// `.never` gives `Date.distantFuture`, `.expired` gives `Date.distantPast`. Negative or
    /// non-finite intervals count as `.expired`.
    public func estimatedExpirationSince(_ date: Date) -> Date {
        switch self {
        case .never:
            return .distantFuture
        case .seconds(let seconds):
            guard seconds.isFinite, seconds > 0 else { return .distantPast }
            return date.addingTimeInterval(seconds)
        case .days(let days):
            guard days > 0 else { return .distantPast }
            let seconds = Double(days) * 86_400
            return date.addingTimeInterval(seconds)
        case .date(let expiry):
            return expiry
        case .expired:
            return .distantPast
        }
    }

    /// True when a value stored with this expiration is invalid from the start.
    public var isExpired: Bool {
        switch self {
        case .expired: return true
        case .seconds(let seconds): return !(seconds.isFinite && seconds > 0)
        case .days(let days): return days <= 0
        case .never, .date: return false
        }
    }

    /// The interval this expiration gives from now; `.never` gives `.infinity`, `.expired` 0.
    public var timeInterval: TimeInterval {
        switch self {
        case .never: return .infinity
        case .seconds(let seconds): return max(0, seconds)
        case .days(let days): return max(0, Double(days) * 86_400)
        case .date(let date): return max(0, date.timeIntervalSinceNow)
        case .expired: return 0
        }
    }
}

/// What a read does to the expiry date of the value it reads.
public enum ExpirationExtending: Sendable, Hashable {
    /// A read leaves the expiry date unchanged.
    case none
    /// A read restarts the storage's own expiration (or the one the value was stored with).
    case cacheTime
    /// A read sets the expiry to this expiration, counted from the read.
    case expirationTime(StorageExpiration)
}

/// The source of "now" for the caches, so that expiration can be tested without waiting.
///
/// `.system` reads the wall clock. Tests and simulations build one from any closure; every cache
/// decision about expiry and recency is taken from it.
public struct CacheClock: Sendable {
    private let read: @Sendable () -> Date

    /// A clock that answers `now()` with whatever `read` returns.
    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    /// The current time by this clock.
    public func now() -> Date { read() }

    /// The wall clock, read coarsely.
    ///
    /// It reads `CLOCK_REALTIME_COARSE`, which is as cheap as a memory load and steps by a few
    /// milliseconds: plenty for expiry, and it keeps a memory-cache hit from paying for a precise
    /// clock read.
    public static let system = CacheClock {
        var now = timespec()
        guard clock_gettime(CLOCK_REALTIME_COARSE, &now) == 0 else { return Date() }
        return Date(timeIntervalSince1970: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
    }
}

/// A value whose size the memory storage counts against its cost limit.
public protocol CacheCostCalculable: Sendable {
    /// The cost of keeping the value in memory, in bytes for images.
    var cacheCost: Int { get }
}

/// A value the disk storage can write as bytes and read back.
public protocol DataTransformable: Sendable {
    /// The bytes to write; throwing stops the store with ``KingfisherError/CacheErrorReason/cannotConvertToData(object:error:)``.
    func toData() throws -> Data
    /// The value for bytes read from disk; throwing makes the read fail.
    static func fromData(_ data: Data) throws -> Self
    /// A value standing for "nothing", used where a value is required but none exists.
    static var empty: Self { get }
}

extension Data: DataTransformable {
    /// The data itself.
    public func toData() throws -> Data { self }
    /// The data itself.
    public static func fromData(_ data: Data) throws -> Data { data }
    /// Empty data.
    public static var empty: Data { Data() }
}

extension KFCrossPlatformImage: CacheCostCalculable {
    /// The bytes of pixel memory over all frames.
    public var cacheCost: Int { cost }
}
