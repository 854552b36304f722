import Foundation
import Kingfisher
import KingfisherSynchronization

/// Produces the bytes of a rendition through three tiers: the server's memory of rendered images,
/// the disk cache, and a job that fetches and processes the source through `KingfisherManager`.
///
/// Jobs for the same rendition are shared (one origin fetch however many requests ask at once),
/// bounded by a ``JobLimiter``, and given a deadline.
final class RenditionPipeline: Sendable {
    let manager: KingfisherManager
    let memory: RenditionMemoryCache
    let limiter: JobLimiter
    let limits: ImageServerLimits
    let metrics: ServerMetrics
    /// Quality, AVIF speed and JPEG XL effort of every rendition.
    let encoding: ImageEncodingOptions
    private let flights = SingleFlight<(Rendition, CacheTier)>()

    init(manager: KingfisherManager, limits: ImageServerLimits, memoryLimit: Int, metrics: ServerMetrics,
         encoding: ImageEncodingOptions = ImageEncodingOptions(compressionQuality: 0.85, avifSpeed: ImageServerConfiguration.defaultAVIFSpeed)) {
        self.manager = manager
        self.memory = RenditionMemoryCache(limit: memoryLimit)
        self.limiter = JobLimiter(maxRunning: limits.maxConcurrentJobs, maxWaiting: limits.maxQueuedJobs)
        self.limits = limits
        self.metrics = metrics
        self.encoding = encoding
    }

    /// The rendition of `source` processed by `processor` and encoded as `rendering`, and the tier it came from.
    ///
    /// `vet` runs before the origin is fetched (the address check); cached renditions skip it.
    func rendition(
        source: URL, processor: any ImageProcessor, rendering: OutputFormat.Rendering,
        vet: @escaping @Sendable () async throws -> Void
    ) async throws -> (Rendition, CacheTier) {
        let cacheKey = "kfserve:\(rendering.token):\(source.absoluteString)"
        let key = processor.identifier.isEmpty ? cacheKey : "\(cacheKey)@\(processor.identifier)"
        if let hit = memory.value(forKey: key) {
            return (hit, .memory)
        }
        let disk = manager.cache.diskStorage
        // An expired entry is left to the manager, which revalidates it with the origin.
        if disk.isCached(forKey: key), let bytes = try? disk.value(forKey: key, extendingExpiration: .none), !bytes.isEmpty {
            let rendition = Rendition(bytes: bytes, key: key)
            memory.store(rendition, forKey: key)
            return (rendition, .disk)
        }
        let ((rendition, tier), joined) = try await flights.value(forKey: key) { [self] in
            try await vet()
            return try await limiter.run {
                try await render(source: source, cacheKey: cacheKey, key: key, processor: processor, rendering: rendering)
            }
        }
        return (rendition, joined ? .shared : tier)
    }

    /// Fetches, processes and encodes one rendition through the manager (which stores it on disk
    /// with the origin's validators, and revalidates it there once it expires), and keeps it in memory.
    private func render(
        source: URL, cacheKey: String, key: String, processor: any ImageProcessor, rendering: OutputFormat.Rendering
    ) async throws -> (Rendition, CacheTier) {
        let limits = self.limits
        let guarded = GuardedProcessor(wrapped: processor, limits: limits)
        let serializer = RenditionSerializer(rendering: rendering, encoding: encoding)
        let options: KingfisherOptionsInfo = [
            .processor(guarded),
            .cacheSerializer(serializer),
            .decodingLimits(ImageDecodingLimits(
                maxPixelsPerFrame: limits.maxPixelsPerFrame, maxFrameCount: limits.maxFrames,
                maxTotalAnimationPixels: limits.maxPixelsPerFrame.multipliedReportingOverflow(by: limits.maxFrames).overflow
                    ? Int.max : limits.maxPixelsPerFrame * limits.maxFrames)),
            .revalidateExpiredCache,
            .waitForCache,
        ]
        let received = Mutex<Int64>(0)
        let resource = KF.ImageResource(downloadURL: source, cacheKey: cacheKey)
        let manager = self.manager
        let result: RetrieveImageResult
        do {
            result = try await Deadline.run(seconds: limits.processingTimeout, onTimeout: ImageServerError(
                .gatewayTimeout, "fetching and processing the image took longer than \(Self.seconds(limits.processingTimeout))"
            )) {
                try await manager.retrieveImage(with: resource, options: options) { receivedSize, _ in
                    received.withLock { $0 = max($0, receivedSize) }
                }
            }
        } catch {
            metrics.recordUpstream(bytes: received.withLock { $0 })
            let refusal = guarded.failure.error
            throw ImageServerError(mapping: refusal ?? error, source: source)
        }
        metrics.recordUpstream(bytes: received.withLock { $0 })
        // The manager has written the rendition to disk (waitForCache), or the origin confirmed
        // it (304): answer those bytes rather than encoding the image a second time. An entry
        // already expired (the origin said max-age=0) is left alone for the next revalidation.
        let disk = manager.cache.diskStorage
        let stored = disk.isCached(forKey: key) ? try? disk.value(forKey: key, extendingExpiration: .none) : nil
        guard let bytes = stored ?? serializer.data(with: result.image, original: nil), !bytes.isEmpty else {
            throw ImageServerError(.internalServerError, "the processed image could not be encoded as \(rendering.token)")
        }
        let rendition = Rendition(bytes: bytes, key: key)
        memory.store(rendition, forKey: key)
        switch result.cacheType {
        case .none: return (rendition, .origin)
        case .disk: return (rendition, .revalidated)
        case .memory: return (rendition, .memory)
        }
    }

    /// `2 s`, `0.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
