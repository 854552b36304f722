import Foundation
import Kingfisher
import KingfisherSynchronization

/// Wraps a request's processor: probes the source's header first and refuses it, naming why,
/// when it is not a decodable image or is over a limit; otherwise runs the wrapped processor.
///
/// Processors report failure as `nil`; the reason is kept in ``failure`` so the answer can say
/// exactly which limit was broken. The identifier is the wrapped processor's, so cache keys do not change.
/// A source that passes is noted in `sourceFormat` and handed to `accepted` (which keeps the
/// original) before it is processed, so that a job of the same source waiting for this one's decode
/// finds it; one that then fails to process is handed to `rejected`.
struct GuardedProcessor: ImageProcessor {
    let wrapped: any ImageProcessor
    let limits: ImageServerLimits
    /// Where the accepted source's format is noted.
    var sourceFormat: SourceFormatBox?
    /// Called with the bytes of a source that passed the checks.
    var accepted: (@Sendable (Data) -> Void)?
    /// Called when a source that passed the checks failed to process.
    var rejected: (@Sendable () -> Void)?
    /// Why the last source was refused, if it was.
    let failure = FailureBox()

    var identifier: String { wrapped.identifier }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        if case .data(let data) = item {
            do {
                let header = try ImageHeader(data: data)
                if let violation = violation(of: header) {
                    failure.record(KingfisherError.processorError(reason: .imageLimitExceeded(format: header.format, violation: violation)))
                    return nil
                }
                sourceFormat?.record(header.format)
            } catch let error as KingfisherError {
                failure.record(error)
                return nil
            } catch {
                return nil
            }
        }
        guard case .data(let data) = item else { return wrapped.process(item: item, options: options) }
        accepted?(data)
        let processed = wrapped.process(item: item, options: options)
        // Only a source that processed stays kept for other renditions.
        if processed == nil { rejected?() }
        return processed
    }

    private func violation(of header: ImageHeader) -> ImageLimitViolation? {
        let pixels = header.pixelWidth.multipliedReportingOverflow(by: header.pixelHeight)
        if pixels.overflow || pixels.partialValue > limits.maxPixelsPerFrame {
            return .pixelsPerFrame(width: header.pixelWidth, height: header.pixelHeight, limit: limits.maxPixelsPerFrame)
        }
        if header.frameCount > limits.maxFrames {
            return .frameCount(count: header.frameCount, limit: limits.maxFrames)
        }
        return nil
    }
}

/// The reason a ``GuardedProcessor`` or a ``RenditionProcessor`` refused a source, shared with the
/// job that asked: a ``KingfisherError``, or an ``ImageServerError`` answered as it is.
final class FailureBox: Sendable {
    private let value = Mutex<(any Error)?>(nil)

    /// Keeps `error`.
    func record(_ error: any Error) {
        value.withLock { $0 = error }
    }

    /// The error kept, if any.
    var error: (any Error)? { value.withLock { $0 } }
}
