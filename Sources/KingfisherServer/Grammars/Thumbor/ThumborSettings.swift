import Foundation

/// The settings of thumbor's configuration file (`thumbor.conf`) that change how ``ThumborGrammar``
/// answers; the defaults are thumbor's, except where a comment says otherwise.
public struct ThumborSettings: Sendable, Hashable {
    /// Where thumbor's `LOADER` reads sources from.
    public enum Loader: String, Sendable, Hashable {
        /// `thumbor.loaders.http_loader`: the image part is a URL.
        case http = "thumbor.loaders.http_loader"
        /// `thumbor.loaders.file_loader`: the image part is a path below `FILE_LOADER_ROOT_PATH`.
        case file = "thumbor.loaders.file_loader"
        /// `thumbor.loaders.file_loader_http_fallback`: the file if there is one, else the URL.
        case fileWithHTTPFallback = "thumbor.loaders.file_loader_http_fallback"
    }

    /// `QUALITY`: the quality of lossy output without `quality()`, 0...1 (thumbor's 80).
    public var quality: Double
    /// `AUTO_WEBP`: without `format()`, WebP for clients whose `Accept` names it, else the source's
    /// format (thumbor's rule; ``ThumborGrammar/autoWebP`` is this or its flag).
    public var autoWebP: Bool
    /// `MAX_WIDTH`: a requested width above it is lowered to it; 0 for none.
    public var maxWidth: Int
    /// `MAX_HEIGHT`: a requested height above it is lowered to it; 0 for none.
    public var maxHeight: Int
    /// `LOADER`.
    public var loader: Loader

    /// thumbor's defaults, or the given values.
    public init(quality: Double = 0.8, autoWebP: Bool = false, maxWidth: Int = 0, maxHeight: Int = 0, loader: Loader = .http) {
        self.quality = min(max(quality, 0.01), 1)
        self.autoWebP = autoWebP
        self.maxWidth = max(0, maxWidth)
        self.maxHeight = max(0, maxHeight)
        self.loader = loader
    }
}
