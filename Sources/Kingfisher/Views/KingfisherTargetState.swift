import Foundation
import KingfisherSynchronization

/// What Kingfisher remembers about one image target: the identifier and task of the request it
/// waits for, the placeholder it shows and its indicator.
///
/// Give a target one with a single stored property, `let kingfisherState = KingfisherTargetState()`,
/// or let ``KingfisherImageSettable/kingfisherState`` keep one in its side table (see
/// ``KingfisherImageSettable``). Everything but the request identifier belongs to the main actor;
/// the identifier sits behind a lock so the manager and the cache can ask, from their own
/// threads, whether a request has been superseded.
@MainActor
public final class KingfisherTargetState {
    /// The identifier of the request the target waits for; guarded by its own lock because the
    /// manager's threads read it through the task-identifier checker.
    private nonisolated let identifier = Mutex<Source.Identifier.Value?>(nil)

    /// The running request's task, if it has one.
    var imageTask: DownloadTask?
    /// The placeholder shown now.
    var placeholder: (any Placeholder)?
    /// The indicator type chosen for the target.
    var indicatorType: IndicatorType = .none
    /// The indicator made for ``indicatorType``.
    var indicator: (any Indicator)?

    /// An empty state: no request, no placeholder, no indicator.
    public nonisolated init() {}

    /// The identifier of the request the target waits for; `nil` when none.
    nonisolated var taskIdentifier: Source.Identifier.Value? {
        get { identifier.withLock { $0 } }
        set { identifier.withLock { $0 = newValue } }
    }

    /// Whether `id` is the request the target waits for; safe from any thread.
    nonisolated func isCurrent(_ id: Source.Identifier.Value) -> Bool {
        identifier.withLock { $0 == id }
    }

    // MARK: Side table

    private struct Entry {
        weak var object: AnyObject?
        let state: KingfisherTargetState
    }

    private static var table: [ObjectIdentifier: Entry] = [:]
    private static var purgeThreshold = 64

    /// The state of `object` in the side table, made on first use.
    static func sideTableState(for object: AnyObject) -> KingfisherTargetState {
        let key = ObjectIdentifier(object)
        if let entry = table[key], entry.object === object {
            return entry.state
        }
        if table.count >= purgeThreshold {
            table = table.filter { $0.value.object != nil }
            purgeThreshold = max(64, table.count * 2)
        }
        let state = KingfisherTargetState()
        table[key] = Entry(object: object, state: state)
        return state
    }

    /// The number of entries in the side table (live or not yet purged).
    static var sideTableCount: Int { table.count }
}
