import KingfisherGTKShims

/// A callback on every frame of a widget's frame clock, from `gtk_widget_add_tick_callback`.
///
/// The clock only ticks while the widget is mapped. `onTick` receives the frame time in
/// microseconds (the same clock for every widget of a window) and returns `false` to stop; ``stop()``
/// stops it from outside. Stopping twice is harmless, and the ticker stops when it is released.
@MainActor
public final class FrameTicker {
    private final class Callback {
        let onTick: @MainActor (Int64) -> Bool
        var finished = false
        init(_ onTick: @escaping @MainActor (Int64) -> Bool) { self.onTick = onTick }
    }

    private let widget: GtkWidgetPointer
    private let callback: Callback
    private var id: guint = 0

    /// Starts calling `onTick` on each frame of `widget`.
    public init(widget: GtkWidgetPointer, onTick: @escaping @MainActor (_ frameTimeMicroseconds: Int64) -> Bool) {
        self.widget = widget
        g_object_ref(widget)
        callback = Callback(onTick)
        id = gtk_widget_add_tick_callback(widget, { _, clock, data in
            guard let data else { return kf_g_source_remove }
            let callback = Unmanaged<Callback>.fromOpaque(data).takeUnretainedValue()
            let time = Int64(gdk_frame_clock_get_frame_time(clock))
            // GTK calls tick callbacks on its own thread, which is the main actor's (GTKMainLoop).
            let keepGoing = MainActor.assumeIsolated {
                let keepGoing = !callback.finished && callback.onTick(time)
                callback.finished = !keepGoing
                return keepGoing
            }
            return keepGoing ? kf_g_source_continue : kf_g_source_remove
        }, Unmanaged.passRetained(callback).toOpaque(), { data in
            guard let data else { return }
            Unmanaged<Callback>.fromOpaque(data).release()
        })
    }

    /// True until `onTick` returns `false` or ``stop()`` is called.
    public var isActive: Bool { id != 0 && !callback.finished }

    /// Stops the callbacks; no further `onTick` runs.
    public func stop() {
        guard id != 0 else { return }
        let current = id
        id = 0
        if !callback.finished {
            callback.finished = true
            gtk_widget_remove_tick_callback(widget, current)
        }
    }

    isolated deinit {
        stop()
        g_object_unref(widget)
    }
}
