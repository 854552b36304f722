import Glibc

/// libdispatch's entry points for letting a foreign event loop service the main queue.
///
/// They are what Foundation's `RunLoop` uses on Linux, exported by `libdispatch.so` but declared in
/// no public header, so they are looked up at run time; `nil` when this libdispatch lacks them.
struct DispatchMainQueueHooks: Sendable {
    /// Returns an eventfd that becomes readable whenever work is queued on the main queue.
    let handle: @convention(c) () -> Int32
    /// Runs the work queued on the main queue; must be called on the main thread.
    let drain: @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// The hooks of the libdispatch this process runs with.
    static let current: DispatchMainQueueHooks? = {
        guard let process = dlopen(nil, RTLD_NOW),
              let handle = dlsym(process, "_dispatch_get_main_queue_handle_4CF"),
              let drain = dlsym(process, "_dispatch_main_queue_callback_4CF")
        else { return nil }
        return DispatchMainQueueHooks(
            handle: unsafeBitCast(handle, to: (@convention(c) () -> Int32).self),
            drain: unsafeBitCast(drain, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        )
    }()
}
