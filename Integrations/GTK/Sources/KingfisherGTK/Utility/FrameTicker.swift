import KingfisherGTKShims

/// A callback on every frame of a widget's frame clock (`gtk_widget_add_tick_callback`), or on
/// every ``ManualFrameClock/advance(to:)`` of a manual clock.
///
/// A widget's clock only ticks while the widget is mapped. `onTick` receives the frame time in
/// microseconds (the same clock for every widget of a window) and returns `false` to stop; ``stop()``
/// stops it from outside. Stopping twice is harmless, and the ticker stops when it is released.
@MainActor
public final class FrameTicker {
    @MainActor final class Callback {
        let onTick: @MainActor (Int64) -> Bool
        var finished = false
        init(_ onTick: @escaping @MainActor (Int64) -> Bool) { self.onTick = onTick }

        /// Runs `onTick` unless finished; returns whether to keep ticking.
        func fire(_ time: Int64) -> Bool {
            let keepGoing = !finished && onTick(time)
            finished = !keepGoing
            return keepGoing
        }
    }

    private let widget: GtkWidgetPointer
    private let callback: Callback
    private var id: guint = 0
    private weak var manualClock: ManualFrameClock?

    /// Starts calling `onTick` on each frame of `clock` when one is given, else of `widget`'s frame clock.
    public init(widget: GtkWidgetPointer, clock: ManualFrameClock? = nil,
                onTick: @escaping @MainActor (_ frameTimeMicroseconds: Int64) -> Bool) {
        self.widget = widget
        g_object_ref(widget)
        callback = Callback(onTick)
        if let clock {
            manualClock = clock
            clock.add(callback)
            return
        }
        id = gtk_widget_add_tick_callback(widget, { _, clock, data in
            guard let data else { return kf_g_source_remove }
            let callback = Unmanaged<Callback>.fromOpaque(data).takeUnretainedValue()
            let time = Int64(gdk_frame_clock_get_frame_time(clock))
            // GTK calls tick callbacks on its own thread, which is the main actor's (GTKMainLoop).
            let keepGoing = MainActor.assumeIsolated { callback.fire(time) }
            return keepGoing ? kf_g_source_continue : kf_g_source_remove
        }, Unmanaged.passRetained(callback).toOpaque(), { data in
            guard let data else { return }
            Unmanaged<Callback>.fromOpaque(data).release()
        })
    }

    /// True until `onTick` returns `false` or ``stop()`` is called.
    public var isActive: Bool { !callback.finished && (id != 0 || manualClock != nil) }

    /// Stops the callbacks; no further `onTick` runs.
    public func stop() {
        let wasFinished = callback.finished
        callback.finished = true
        manualClock?.remove(callback)
        manualClock = nil
        guard id != 0 else { return }
        let current = id
        id = 0
        if !wasFinished { gtk_widget_remove_tick_callback(widget, current) }
    }

    isolated deinit {
        stop()
        g_object_unref(widget)
    }
}

/// A frame clock that moves only when told: give it to a view's `frameClock` to drive its fades and
/// animations frame by frame (tests, recordings) instead of the window's clock.
@MainActor
public final class ManualFrameClock {
    private var callbacks: [FrameTicker.Callback] = []

    /// The time of the last ``advance(to:)``, in microseconds.
    public private(set) var time: Int64 = 0

    /// A clock at time zero.
    public init() {}

    /// Moves the clock to `time` (microseconds) and runs every ticker on it once.
    public func advance(to time: Int64) {
        self.time = time
        let current = callbacks
        for callback in current where !callback.finished {
            _ = callback.fire(time)
        }
        callbacks.removeAll { $0.finished }
    }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: Double) {
        advance(to: time + Int64((seconds * 1_000_000).rounded()))
    }

    func add(_ callback: FrameTicker.Callback) { callbacks.append(callback) }

    func remove(_ callback: FrameTicker.Callback) { callbacks.removeAll { $0 === callback } }
}
