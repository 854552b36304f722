import Foundation
import KingfisherSynchronization

/// Turns the growing bytes of a progressive JPEG download into partial images, as
/// ``ImageProgressive`` asks.
///
/// Fed every piece of the body as it arrives (``append(_:)``), it follows the JPEG's scans with a
/// ``JPEGScanTracker``. When a scan completes, the bytes up to it (closed with EOI, so libjpeg sees
/// a whole file and the later coefficients are simply absent) are decoded through the request's
/// processor on a utility queue, blurred while the image is still coarse, and handed to
/// `onImage`. At most one decode runs at a time; a scan that completes meanwhile is picked up when
/// it ends. `isFastestScan` decodes the newest completed scan (skipping those in between), otherwise
/// each scan in order; `scanInterval` is the least time between two partial images. A baseline
/// JPEG, or anything that is not a JPEG, gives nothing. After ``finish()`` (the download ended)
/// nothing more is delivered.
///
/// Why a decode of the prefix rather than libjpeg's buffered-image mode: the prefix decode reuses
/// the whole codec path (limits, EXIF orientation, DCT scaling by the processor) and costs one
/// decode per update, which `scanInterval` and the one-in-flight rule bound; buffered-image mode
/// would keep a libjpeg decompressor (and its coefficient buffer, 128 bytes a pixel for a
/// progressive file) alive across network waits for every image downloading at once.
final class ImageProgressiveProvider: Sendable {
    private struct State {
        var data = Data()
        var tracker = JPEGScanTracker()
        /// Completed scans already decoded (or skipped by `isFastestScan`).
        var decodedScans = 0
        var decoding = false
        var finished = false
        var lastDelivery: ContinuousClock.Instant?
        var updates = 0
    }

    private let progressive: ImageProgressive
    private let options: KingfisherParsedOptionsInfo
    private let onImage: @Sendable (KFCrossPlatformImage) -> Void
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "com.onevcat.Kingfisher.ImageProgressiveProvider", qos: .utility)
    private let clock = ContinuousClock()

    /// A provider for a download made with `options`, delivering partial images to `onImage` (on
    /// its own queue).
    init(progressive: ImageProgressive, options: KingfisherParsedOptionsInfo,
         onImage: @escaping @Sendable (KFCrossPlatformImage) -> Void) {
        self.progressive = progressive
        self.options = options
        self.onImage = onImage
    }

    /// Adds a piece of the body.
    func append(_ piece: Data) {
        state.withLock { state in
            guard !state.finished, !state.tracker.isInvalid else { return }
            state.data.append(piece)
            state.tracker.update(with: state.data)
        }
        scheduleIfDue()
    }

    /// The download ended: no partial image is delivered after this returns, and the buffered
    /// bytes are freed.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.data = Data()
        }
    }

    /// How many partial images were handed over.
    var updateCount: Int { state.withLock { $0.updates } }

    /// Starts a decode when a completed scan waits, none runs, and the interval has passed.
    private func scheduleIfDue() {
        let now = clock.now
        let job = state.withLock { state -> (prefix: Data, scanIndex: Int)? in
            guard !state.finished, !state.decoding, state.tracker.isProgressive else { return nil }
            let ends = state.tracker.completedScanEnds
            guard ends.count > state.decodedScans else { return nil }
            if let last = state.lastDelivery, last.duration(to: now) < .seconds(progressive.scanInterval) { return nil }
            let index = progressive.isFastestScan ? ends.count - 1 : state.decodedScans
            state.decodedScans = index + 1
            state.decoding = true
            return (JPEGScanTracker.prefix(of: state.data, endingAt: ends[index]), index)
        }
        guard let job else { return }
        queue.async { [self] in
            let image = partialImage(from: job.prefix, scanIndex: job.scanIndex)
            let deliver = state.withLock { state -> Bool in
                state.decoding = false
                guard !state.finished, image != nil, options.isCurrentSourceTask else { return false }
                state.lastDelivery = clock.now
                state.updates += 1
                return true
            }
            if deliver, let image { onImage(image) }
            scheduleIfDue()
        }
    }

    /// The prefix decoded through the processor, blurred for the first scans.
    ///
    /// With the default processor the first scans are decoded smaller, through libjpeg's DCT
    /// scaling (1/8 for the first scan, which holds little more than one colour per 8×8 block,
    /// then 1/4 and 1/2), at a scale that keeps the image's size in points: a toolkit draws it as
    /// large as the final image, and the decode costs a fraction of a full one.
    private func partialImage(from prefix: Data, scanIndex: Int) -> KFCrossPlatformImage? {
        let decoded: KFCrossPlatformImage?
        if options.processor.identifier.isEmpty, let header = try? ImageHeader(data: prefix) {
            let divisor = Self.scaleDivisor(scanIndex: scanIndex)
            var creating = options.imageCreatingOptions
            let size = header.orientedPixelSize
            creating.minimumPixelSize = CGSize(width: size.width / divisor, height: size.height / divisor)
            decoded = (try? KFCrossPlatformImage(data: prefix, options: creating)).map {
                $0.withScale(options.scaleFactor * CGFloat($0.pixelWidth) / CGFloat(max(1, size.width)))
            }
        } else {
            decoded = options.processor.process(item: .data(prefix), options: options)
        }
        guard let image = decoded else { return nil }
        guard progressive.isBlur else { return image }
        let radius = Self.blurRadius(scanIndex: scanIndex, width: image.pixelWidth, height: image.pixelHeight)
        return radius > 0 ? image.kf.blurred(withRadius: radius) : image
    }

    /// How much smaller partial image `scanIndex` (0-based) is decoded: 8, 4, 2, then full size.
    static func scaleDivisor(scanIndex: Int) -> Int {
        switch scanIndex {
        case 0: return 8
        case 1: return 4
        case 2, 3: return 2
        default: return 1
        }
    }

    /// The blur of partial image `scanIndex` (0-based): strong for the first scans, which carry
    /// only coarse colour, then weaker, and none from the seventh on. Scaled to the image so that a
    /// thumbnail and a full-size image look alike: the shorter side × 16, 12, 8, 6, 4 and 2, over 256.
    static func blurRadius(scanIndex: Int, width: Int, height: Int) -> CGFloat {
        let steps = [16.0, 12.0, 8.0, 6.0, 4.0, 2.0]
        guard scanIndex < steps.count else { return 0 }
        let unit = Double(min(width, height)) / 64
        return CGFloat(max(1, unit * steps[scanIndex] / 4))
    }
}
