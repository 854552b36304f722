import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims

/// The gallery's main window: a header bar with a menu (Clear caches) over a scrolling `GtkGridView`
/// of ``GalleryCell``s, each showing its URL's image downsampled to the cell's pixel size, with a
/// placeholder, a spinner and a fade. Clicking a cell opens its full image in a ``ViewerWindow``.
@MainActor
public final class GalleryWindow {
    /// The `GtkWindow`.
    public let window: GtkWidgetPointer
    /// The URLs shown, in grid order.
    public let urls: [URL]
    /// A cell's side in points.
    public let cellSize: Int
    /// The cache the cells load through.
    public let cache: ImageCache
    let scrolled: GtkWidgetPointer
    let grid: GtkWidgetPointer
    private var cells: [UnsafeMutableRawPointer: GalleryCell] = [:]
    private let context: Unmanaged<GalleryWindowBox>
    private let placeholder: KFCrossPlatformImage?
    private var viewers: [ViewerWindow] = []
    var screenshotTicker: FrameTicker?
    /// Loads started and completions received, per load.
    public private(set) var requestsStarted = 0
    /// How many completions each load (numbered from 0 in start order) received.
    public private(set) var completionCounts: [Int] = []
    /// Loads whose processed image was in the memory cache when the cell asked for it.
    public private(set) var memoryHitsRequested = 0
    /// Of those, the ones the cell showed before `setImage` returned (the frame they were asked for).
    public private(set) var memoryHitsShownAtOnce = 0

    /// A window over `urls`, not shown until ``present()``.
    public init(urls: [URL], cellSize: Int = 160, cache: ImageCache = .default, width: Int32 = 900, height: Int32 = 700) {
        self.urls = urls
        self.cellSize = cellSize
        self.cache = cache
        placeholder = GalleryWindow.makePlaceholder()
        window = kf_gtk_widget(gtk_window_new())
        gtk_window_set_title(kf_gtk_window(window), "Kingfisher Gallery")
        gtk_window_set_default_size(kf_gtk_window(window), width, height)

        let strings = gtk_string_list_new(nil)
        for url in urls { gtk_string_list_append(strings, url.absoluteString) }
        let selection = gtk_no_selection_new(kf_g_list_model(UnsafeMutableRawPointer(strings)))
        let factory = gtk_signal_list_item_factory_new()
        // The model is set once the factory's handlers are connected: GTK makes the first cells as
        // soon as a grid has a model.
        grid = kf_gtk_widget(gtk_grid_view_new(nil, factory))
        gtk_grid_view_set_max_columns(kf_gtk_grid_view(grid), 12)
        gtk_grid_view_set_single_click_activate(kf_gtk_grid_view(grid), 1)
        scrolled = kf_gtk_widget(gtk_scrolled_window_new())
        gtk_scrolled_window_set_child(kf_gtk_scrolled_window(scrolled), grid)
        gtk_window_set_child(kf_gtk_window(window), scrolled)

        let box = GalleryWindowBox()
        context = Unmanaged.passRetained(box)
        box.gallery = self
        connect(factory: UnsafeMutableRawPointer(factory))
        gtk_grid_view_set_model(kf_gtk_grid_view(grid), kf_gtk_selection_model(UnsafeMutableRawPointer(selection)))
        g_object_unref(UnsafeMutableRawPointer(selection))
        installMenu()
    }

    isolated deinit {
        context.release()
    }

    /// Shows the window.
    public func present() {
        gtk_window_present(kf_gtk_window(window))
    }

    /// The cells bound to a URL now (the visible ones and the few GTK keeps ready around them).
    public var boundCells: [GalleryCell] {
        cells.values.filter { $0.url != nil }
    }

    /// The bound cells inside the scrolled area now (GTK keeps more cells bound than it shows).
    public var visibleCells: [GalleryCell] {
        let height = Float(gtk_widget_get_height(scrolled))
        let width = Float(gtk_widget_get_width(scrolled))
        return boundCells.filter { cell in
            guard gtk_widget_get_mapped(cell.root) != 0 else { return false }
            var bounds = graphene_rect_t()
            guard gtk_widget_compute_bounds(cell.root, scrolled, &bounds) != 0 else { return false }
            return bounds.origin.y < height && bounds.origin.y + bounds.size.height > 0
                && bounds.origin.x < width && bounds.origin.x + bounds.size.width > 0
        }
    }

    /// Whether every visible cell shows its own image, with no load or fade running.
    public var visibleCellsShowTheirImages: Bool {
        let visible = visibleCells
        return !visible.isEmpty && visible.allSatisfy(\.isShowingItsImage)
    }

    /// The grid's vertical scroll position, in points from the top.
    public var scrollOffset: Double {
        get { gtk_adjustment_get_value(verticalAdjustment) }
        set { gtk_adjustment_set_value(verticalAdjustment, newValue) }
    }

    /// The largest ``scrollOffset`` and the height of one page.
    public var scrollRange: (maximum: Double, page: Double) {
        let adjustment = verticalAdjustment
        let page = gtk_adjustment_get_page_size(adjustment)
        return (max(0, gtk_adjustment_get_upper(adjustment) - page), page)
    }

    private var verticalAdjustment: UnsafeMutablePointer<GtkAdjustment>? {
        gtk_scrolled_window_get_vadjustment(kf_gtk_scrolled_window(scrolled))
    }

    /// Empties the memory and disk caches (the menu's Clear caches).
    public func clearCaches() {
        cache.clearMemoryCache()
        cache.clearDiskCache()
    }

    /// Opens `url`'s full image in a window of its own.
    public func openViewer(for url: URL) {
        let viewer = ViewerWindow(url: url, cache: cache)
        viewers.append(viewer)
        viewer.onClose = { [weak self, weak viewer] in
            self?.viewers.removeAll { $0 === viewer }
        }
        viewer.present()
    }

    // MARK: Cells

    fileprivate func setUp(item: UnsafeMutableRawPointer) {
        let cell = GalleryCell(size: cellSize)
        cells[item] = cell
        gtk_list_item_set_child(kf_gtk_list_item(item), cell.root)
    }

    fileprivate func bind(item: UnsafeMutableRawPointer) {
        guard let cell = cells[item] else { return }
        let position = Int(gtk_list_item_get_position(kf_gtk_list_item(item)))
        guard urls.indices.contains(position) else { return }
        let scale = max(1, Int(gtk_widget_get_scale_factor(window)))
        let pixels = CGFloat(cellSize * scale)
        let processor = DownsamplingImageProcessor(size: CGSize(width: pixels, height: pixels))
        let options: KingfisherOptionsInfo = [
            .targetCache(cache),
            .processor(processor),
            .scaleFactor(CGFloat(scale)),
            .transition(.fade(0.25)),
            .cacheOriginalImage,
        ]
        let load = requestsStarted
        requestsStarted += 1
        completionCounts.append(0)
        // The memory cache's key for a processed image: the URL, then `@` and the processor.
        let inMemory = cache.memoryStorage.isCached(forKey: urls[position].absoluteString + "@" + processor.identifier)
        cell.bind(to: urls[position], options: options, placeholder: placeholder) { [weak self] _ in
            self?.completionCounts[load] += 1
        }
        if inMemory {
            memoryHitsRequested += 1
            if cell.isShowingItsImage { memoryHitsShownAtOnce += 1 }
        }
    }

    fileprivate func unbind(item: UnsafeMutableRawPointer) {
        cells[item]?.unbind()
    }

    fileprivate func tearDown(item: UnsafeMutableRawPointer) {
        cells[item] = nil
    }

    fileprivate func activate(position: Int) {
        guard urls.indices.contains(position) else { return }
        openViewer(for: urls[position])
    }

    /// What a list item factory signal asks of the gallery.
    fileprivate enum ItemSignal: String, CaseIterable {
        case setup, bind, unbind, teardown
    }

    fileprivate func handle(_ signal: ItemSignal, item: UnsafeMutableRawPointer) {
        switch signal {
        case .setup: setUp(item: item)
        case .bind: bind(item: item)
        case .unbind: unbind(item: item)
        case .teardown: tearDown(item: item)
        }
    }

    private func connect(factory: UnsafeMutableRawPointer?) {
        let data = context.toOpaque()
        for signal in ItemSignal.allCases {
            // Each handler holds its signal and a weak reference to the gallery; GLib releases it
            // when the factory goes.
            let handler = ItemSignalHandler(signal: signal, gallery: self)
            _ = kf_g_signal_connect_pointer(factory, signal.rawValue, { _, item, handler in
                guard let item, let handler else { return }
                MainActor.assumeIsolated {
                    let handler = Unmanaged<ItemSignalHandler>.fromOpaque(handler).takeUnretainedValue()
                    handler.gallery?.handle(handler.signal, item: item)
                }
            }, Unmanaged.passRetained(handler).toOpaque(), { handler, _ in
                guard let handler else { return }
                Unmanaged<ItemSignalHandler>.fromOpaque(handler).release()
            })
        }
        _ = kf_g_signal_connect_uint(grid, "activate", { _, position, data in
            guard let data else { return }
            MainActor.assumeIsolated { GalleryWindowBox.gallery(data)?.activate(position: Int(position)) }
        }, data, nil)
    }

    private func installMenu() {
        let group = g_simple_action_group_new()
        let clear = g_simple_action_new("clear-caches", nil)
        _ = kf_g_signal_connect_pointer(UnsafeMutableRawPointer(clear), "activate", { _, _, data in
            guard let data else { return }
            MainActor.assumeIsolated { GalleryWindowBox.gallery(data)?.clearCaches() }
        }, context.toOpaque(), nil)
        g_action_map_add_action(kf_g_action_map(UnsafeMutableRawPointer(group)), kf_g_action(UnsafeMutableRawPointer(clear)))
        gtk_widget_insert_action_group(window, "gallery", kf_g_action_group(UnsafeMutableRawPointer(group)))
        g_object_unref(UnsafeMutableRawPointer(clear))
        g_object_unref(UnsafeMutableRawPointer(group))

        let menu = g_menu_new()
        g_menu_append(menu, "Clear caches", "gallery.clear-caches")
        let button = kf_gtk_widget(gtk_menu_button_new())
        gtk_menu_button_set_icon_name(kf_gtk_menu_button(button), "open-menu-symbolic")
        gtk_menu_button_set_menu_model(kf_gtk_menu_button(button), kf_g_menu_model(UnsafeMutableRawPointer(menu)))
        g_object_unref(UnsafeMutableRawPointer(menu))
        let header = gtk_header_bar_new()
        gtk_header_bar_pack_end(kf_gtk_header_bar(UnsafeMutableRawPointer(header)), button)
        gtk_window_set_titlebar(kf_gtk_window(window), header.map { kf_gtk_widget(UnsafeMutableRawPointer($0)) })
    }

    /// A light grey square: what a cell shows until its image arrives.
    private static func makePlaceholder() -> KFCrossPlatformImage? {
        let pixels = [UInt8]((0..<16).map { _ in [UInt8(210), 210, 214, 255] }.joined())
        return ImageFrame(width: 4, height: 4, pixels: pixels).map { KFCrossPlatformImage(frame: $0) }
    }
}

/// The user data of one list item factory signal: which signal, and the gallery, weakly.
@MainActor
private final class ItemSignalHandler {
    let signal: GalleryWindow.ItemSignal
    weak var gallery: GalleryWindow?

    init(signal: GalleryWindow.ItemSignal, gallery: GalleryWindow) {
        self.signal = signal
        self.gallery = gallery
    }
}

/// A weak reference to the gallery that GLib signal handlers hold as their user data.
@MainActor
final class GalleryWindowBox {
    weak var gallery: GalleryWindow?

    static func gallery(_ data: UnsafeMutableRawPointer) -> GalleryWindow? {
        Unmanaged<GalleryWindowBox>.fromOpaque(data).takeUnretainedValue().gallery
    }
}
