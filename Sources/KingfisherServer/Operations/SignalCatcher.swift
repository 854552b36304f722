import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Catches signals through Dispatch sources, handing each to a closure instead of letting its
/// default action end the process, until ``release()``.
///
/// On Linux, Dispatch takes the signal over itself when a source is registered (it routes the
/// signal to a `signalfd`), so ``catching(_:handler:)`` returns only once every source is
/// registered: a signal sent after it is never lost. On Darwin the signal is ignored first, as
/// kqueue reports ignored signals too.
final class SignalCatcher {
    private var sources: [any DispatchSourceSignal]

    private init(sources: [any DispatchSourceSignal]) {
        self.sources = sources
    }

    /// A catcher of `signals` whose sources are registered; `handler` runs on a Dispatch queue.
    static func catching(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) async -> SignalCatcher {
        var sources: [any DispatchSourceSignal] = []
        for number in Set(signals) {
            #if canImport(Darwin)
            signal(number, SIG_IGN)
            #endif
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            await withCheckedContinuation { (registered: CheckedContinuation<Void, Never>) in
                source.setRegistrationHandler { registered.resume() }
                source.resume()
            }
            sources.append(source)
        }
        return SignalCatcher(sources: sources)
    }

    /// Stops handing signals to the handler.
    func release() {
        for source in sources { source.cancel() }
        sources = []
    }
}
