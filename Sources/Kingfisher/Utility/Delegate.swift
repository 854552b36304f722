import Foundation
import KingfisherSynchronization

/// A slot for one callback, registered against an owner it holds weakly, as Kingfisher's builders
/// keep their `on…` handlers.
///
/// ``delegate(on:block:)`` stores `block`; ``call(_:)`` runs it with the owner, or returns `nil`
/// once the owner is gone, so a handler that captures its owner through the first parameter never
/// keeps it alive. A synchronous and an asynchronous block are kept apart: ``call(_:)`` runs the
/// first, ``callAsync(_:)`` the second. Registering again replaces the block of that kind.
///
/// `@unchecked Sendable`: the two stored blocks are only read and written inside `blocks`, a
/// `Mutex`. The blocks themselves are not `Sendable`; calling one from another thread than the
/// one that registered it is the caller's choice, as in Kingfisher.
// `@unchecked Sendable`: its only state is `blocks`, guarded by that `Mutex`.
public final class Delegate<Input, Output>: @unchecked Sendable {
    /// The registered blocks.
    // `@unchecked Sendable`: a `Blocks` value is stored only in `blocks`, a `Mutex`, which guards it;
    // this lets the pair cross into and out of that lock.
    private struct Blocks: @unchecked Sendable {
        var sync: ((Input) -> Output?)?
        var async: ((Input) async -> Output?)?
    }

    private let blocks = Mutex(Blocks())

    /// An empty slot: ``call(_:)`` returns `nil` until a block is registered.
    public init() {}

    /// Registers `block`, called with `target` and the input while `target` lives; `nil` empties
    /// the synchronous slot's effect (calls return `nil`).
    public func delegate<T: AnyObject>(on target: T, block: ((T, Input) -> Output)?) {
        let wrapped: (Input) -> Output? = { [weak target] input in
            guard let target else { return nil }
            return block?(target, input)
        }
        blocks.withLock { $0.sync = wrapped }
    }

    /// Registers an asynchronous `block`, run by ``callAsync(_:)`` while `target` lives.
    public func delegate<T: AnyObject>(on target: T, block: ((T, Input) async -> Output)?) {
        let wrapped: (Input) async -> Output? = { [weak target] input in
            guard let target else { return nil }
            return await block?(target, input)
        }
        blocks.withLock { $0.async = wrapped }
    }

    /// Runs the synchronous block; `nil` when none is set or its owner is gone.
    public func call(_ input: Input) -> Output? {
        let current = blocks.withLock { $0 }
        return current.sync?(input)
    }

    /// The same as ``call(_:)``.
    public func callAsFunction(_ input: Input) -> Output? {
        call(input)
    }

    /// Runs the asynchronous block; `nil` when none is set or its owner is gone.
    public func callAsync(_ input: Input) async -> Output? {
        let current = blocks.withLock { $0 }
        return await current.async?(input)
    }

    /// Whether a synchronous or an asynchronous block has been registered.
    public var isSet: Bool {
        blocks.withLock { $0.sync != nil || $0.async != nil }
    }

    /// A new slot holding the same blocks.
    func copy() -> Delegate<Input, Output> {
        let result = Delegate<Input, Output>()
        let current = blocks.withLock { $0 }
        result.blocks.withLock { $0 = current }
        return result
    }
}

extension Delegate where Input == Void {
    /// Runs the synchronous block with no input.
    public func call() -> Output? {
        call(())
    }

    /// The same as ``call()``.
    public func callAsFunction() -> Output? {
        call()
    }
}

extension Delegate where Input == Void, Output: OptionalProtocol {
    /// Runs the synchronous block with no input; `Output`'s `nil` when it gives none.
    public func call() -> Output {
        call(())
    }

    /// The same as ``call()``.
    public func callAsFunction() -> Output {
        call()
    }
}

extension Delegate where Output: OptionalProtocol {
    /// Runs the synchronous block; for an optional `Output`, its `nil` rather than a doubly
    /// optional result when no block answers.
    public func call(_ input: Input) -> Output {
        let current = blocks.withLock { $0 }
        return current.sync?(input) ?? Output._createNil
    }

    /// The same as ``call(_:)``.
    public func callAsFunction(_ input: Input) -> Output {
        call(input)
    }
}

/// A type with a `nil` of its own: lets ``Delegate`` return a flat optional.
public protocol OptionalProtocol {
    /// The `nil` value of the type.
    static var _createNil: Self { get }
}

extension Optional: OptionalProtocol {
    /// `nil`.
    public static var _createNil: Optional<Wrapped> {
        nil
    }
}
