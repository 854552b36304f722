import Foundation
import KingfisherSynchronization

/// Carries a decoder's own reason out of a processor that can only answer `nil`.
///
/// ``ImageProcessor/process(item:options:)`` returns an optional, as in Kingfisher, so a processor
/// that meets a truncated file or an image over the decoding limits can only say "no image". The
/// codecs record the error they threw in the slot bound around the processor; the stage that turns
/// the `nil` into a ``KingfisherError`` then reports that error (`.decodingFailed`,
/// `.imageLimitExceeded`, `.unknownImageFormat`, `.emptyImageData`) instead of `.processingFailed`.
enum DecodeFailure {
    /// The last decoding error recorded while a processor ran.
    final class Slot: Sendable {
        let reason = Mutex<KingfisherError.ProcessorErrorReason?>(nil)
    }

    /// The slot of the processor running on this thread or task, if a stage bound one.
    @TaskLocal static var slot: Slot?

    /// Records `error` in the current slot when it is a processor-stage error.
    static func record(_ error: any Error) {
        guard let slot, case .processorError(let reason)? = error as? KingfisherError else { return }
        slot.reason.withLock { $0 = reason }
    }

    /// Runs `body`, rethrowing its error after recording it; a success clears what an earlier call
    /// recorded, so the slot always speaks of the latest decode.
    static func recording<T>(_ body: () throws -> T) throws -> T {
        do {
            let value = try body()
            slot?.reason.withLock { $0 = nil }
            return value
        } catch {
            record(error)
            throw error
        }
    }
}

extension ImageProcessor {
    /// Runs the processor on `item`; a `nil` becomes the decoder's reason when decoding failed while
    /// it ran, `.processingFailed` otherwise.
    func processReportingReason(
        item: ImageProcessItem, options: KingfisherParsedOptionsInfo
    ) -> Result<KFCrossPlatformImage, KingfisherError> {
        let slot = DecodeFailure.Slot()
        let image = DecodeFailure.$slot.withValue(slot) { process(item: item, options: options) }
        if let image { return .success(image) }
        let reason = slot.reason.withLock { $0 } ?? .processingFailed(processor: self, item: item)
        return .failure(.processorError(reason: reason))
    }
}
