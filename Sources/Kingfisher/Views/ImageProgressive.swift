import Foundation

/// How an image target shows a progressive JPEG while its scans arrive, set with
/// `.progressiveJPEG(_:)`.
///
/// With the option, `kf.setImage` shows each completed scan of a downloading progressive JPEG:
/// decoded from the bytes so far, run through the request's processor, blurred while coarse (with
/// `isBlur`), and set on the target through ``onImageUpdated``'s choice, until the final image
/// replaces it. A baseline JPEG, a cache hit or a data provider gives no partial image, nor does a
/// request the target has moved on from.
public struct ImageProgressive: Sendable {
    /// What a target does with a partial image that a scan produced.
    public enum UpdatingStrategy: Sendable {
        /// Show the partial image.
        case `default`
        /// Keep what the target shows now.
        case keepCurrent
        /// Show the given image instead (`nil` clears the target).
        case replace(KFCrossPlatformImage?)
    }

    /// Blurred partial images, sharp on completion; the fastest scans, no minimum interval.
    public static let `default` = ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0)

    /// Blur each partial image until the last scan.
    public let isBlur: Bool
    /// Decode only the scans that arrive fastest, skipping intermediate ones when data comes quickly.
    public let isFastestScan: Bool
    /// The least time, in seconds, between two partial images shown.
    public let scanInterval: TimeInterval
    /// Asked on the main actor for each partial image; `nil` means ``UpdatingStrategy/default``.
    public var onImageUpdated: (@MainActor @Sendable (KFCrossPlatformImage) -> UpdatingStrategy)?

    /// The same as ``default``: blurred partial images, the fastest scans, no minimum interval.
    public init() {
        self.init(isBlur: true, isFastestScan: true, scanInterval: 0)
    }

    /// A description with the given blur, scan choice and interval (negative intervals count as 0).
    public init(
        isBlur: Bool,
        isFastestScan: Bool,
        scanInterval: TimeInterval,
        onImageUpdated: (@MainActor @Sendable (KFCrossPlatformImage) -> UpdatingStrategy)? = nil
    ) {
        self.isBlur = isBlur
        self.isFastestScan = isFastestScan
        self.scanInterval = scanInterval.isFinite ? max(0, scanInterval) : 0
        self.onImageUpdated = onImageUpdated
    }
}
