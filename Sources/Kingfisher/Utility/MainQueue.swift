import Foundation

/// Answers "is this code running on the main queue?", the one test the library uses for it.
///
/// `Thread.isMainThread` alone is not enough on Linux: once a program hands its main thread to
/// Dispatch (an async `main`, `dispatchMain()`, as `swift test` does), the main queue, and with it
/// the main actor, is drained by a worker thread, where `Thread.isMainThread` is false. The main
/// queue is marked with a queue-specific value, found by `DispatchQueue.getSpecific` in any block
/// the main queue runs; the main thread itself counts too (a GTK or RunLoop program drains the
/// main queue there, between its own callbacks).
public enum MainQueue {
    private static let key: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    /// Whether the caller runs on the main queue (or on the main thread).
    public static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: key) != nil
    }
}
