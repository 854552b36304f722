import Foundation
import Kingfisher
import KingfisherSynchronization

/// Produces the bytes of a rendition through four tiers: the server's memory of rendered images,
/// the disk cache, the original kept on disk (another size of the same source), and a job that
/// fetches and processes the source through `KingfisherManager`.
///
/// Jobs for the same rendition are shared (one origin fetch however many requests ask at once),
/// bounded by a ``JobLimiter``, and given a deadline.
final class RenditionPipeline: Sendable {
    let manager: KingfisherManager
    let memory: RenditionMemoryCache
    let limiter: JobLimiter
    let limits: ImageServerLimits
    let metrics: ServerMetrics
    /// The default quality, AVIF speed and JPEG XL effort of renditions.
    let encoding: ImageEncodingOptions
    /// Whether fetched originals are kept on disk for other renditions of the same source.
    let keepsOriginals: Bool
    /// Checks each redirect hop of an origin fetch.
    let redirects: RedirectVetting?
    /// Where `s3://` sources are read, and as whom.
    let s3: S3SourceConfiguration?
    private let flights = SingleFlight<(Rendition, CacheTier)>()
    /// Reduced decodes shared by jobs that render one source at once (64 MB of pixels at most).
    let decodes = SharedDecodes(budget: 64 << 20)
    /// The sources fetched lately: an original is kept from the second rendition of its source on.
    private let fetched = RecentSources(capacity: 1 << 16)

    init(manager: KingfisherManager, limits: ImageServerLimits, memoryLimit: Int, metrics: ServerMetrics,
         encoding: ImageEncodingOptions = ImageEncodingOptions(compressionQuality: 0.85, avifSpeed: ImageServerConfiguration.defaultAVIFSpeed),
         keepsOriginals: Bool = true, redirects: RedirectVetting? = nil, s3: S3SourceConfiguration? = nil) {
        self.manager = manager
        self.memory = RenditionMemoryCache(limit: memoryLimit)
        self.limiter = JobLimiter(maxRunning: limits.maxConcurrentJobs, maxWaiting: limits.maxQueuedJobs)
        self.limits = limits
        self.metrics = metrics
        self.encoding = encoding
        self.keepsOriginals = keepsOriginals
        self.redirects = redirects
        self.s3 = s3
    }

    /// The disk key of the original bytes of `source`.
    static func originalKey(for source: URL) -> String { "kfserve-original:\(source.absoluteString)" }

    /// The rendition of `source` processed by `processor` and encoded as `rendering` with
    /// `encoding` (at most `maxBytes` when given), and the tier it came from.
    ///
    /// `vet` runs before the origin is fetched (the address check); cached renditions skip it.
    /// `prepare` runs before every job that processes (loading watermarks); cached renditions skip it.
    /// A `file:` source is read from the disk, never kept as an original, and cached under its
    /// `version` (size and modification time) too, so a changed file makes new renditions.
    func rendition(
        source: URL, version: String? = nil, processor: any ImageProcessor, rendering: OutputFormat.Rendering,
        encoding: ImageEncodingOptions? = nil, maxBytes: Int? = nil, alphaInOpaqueFormats: AlphaInOpaqueFormats = .compositeOverBlack,
        vet: @escaping @Sendable () async throws -> Void, prepare: @escaping @Sendable () async throws -> Void = {}
    ) async throws -> (Rendition, CacheTier) {
        let encoding = encoding ?? self.encoding
        var output = rendering.token
        if encoding.compressionQuality != self.encoding.compressionQuality { output += ",q\(encoding.compressionQuality)" }
        if let maxBytes { output += ",max\(maxBytes)" }
        if alphaInOpaqueFormats != .compositeOverBlack { output += ",alpha-\(alphaInOpaqueFormats.rawValue)" }
        let cacheKey = "kfserve:\(output):\(source.absoluteString)" + (version.map { "#\($0)" } ?? "")
        let key = processor.identifier.isEmpty ? cacheKey : "\(cacheKey)@\(processor.identifier)"
        if let hit = memory.value(forKey: key) {
            return (hit, .memory)
        }
        let disk = manager.cache.diskStorage
        // An expired entry is left to the manager, which revalidates it with the origin.
        if disk.isCached(forKey: key), let bytes = try? disk.value(forKey: key, extendingExpiration: .none), !bytes.isEmpty {
            let rendition = Rendition(bytes: bytes, key: key, lastModified: storedDate(forKey: key))
            memory.store(rendition, forKey: key)
            return (rendition, .disk)
        }
        let ((rendition, tier), joined) = try await flights.value(forKey: key) { [self] in
            // Other jobs of this source go first through its fetch and decode, so that this one
            // finds the original kept and, at the same decoded size, the image.
            let ticket = await sharingTicket(source: source, version: version, processor: processor)
            defer { ticket?.leave() }
            // An expired rendition is revalidated with the origin by the manager; a new one is
            // made from the kept original when there is one.
            let usesOriginal = keepsOriginals && !source.isFileURL && !disk.hasExpiredEntry(forKey: key)
            let original = usesOriginal ? try? disk.value(forKey: Self.originalKey(for: source), extendingExpiration: .cacheTime) : nil
            if original == nil { try await vet() }
            try await prepare()
            return try await limiter.run {
                try await render(source: source, original: original ?? nil, cacheKey: cacheKey, key: key, processor: processor,
                                 serializer: RenditionSerializer(rendering: rendering, encoding: encoding, maxBytes: maxBytes,
                                                                 sourceFormat: SourceFormatBox(),
                                                                 alphaInOpaqueFormats: alphaInOpaqueFormats))
            }
        }
        return (rendition, joined ? .shared : tier)
    }

    /// A place among the jobs of `source` sharing their reduced decodes, for a processor that
    /// starts by resizing; `nil` for any other.
    private func sharingTicket(source: URL, version: String?, processor: any ImageProcessor) async -> SharedDecodes.Ticket? {
        guard let processor = processor as? RenditionProcessor, processor.startsWithGeometry else { return nil }
        let ticket = await decodes.enter(source.absoluteString + (version.map { "#\($0)" } ?? ""))
        processor.decodeShare.attach(ticket)
        return ticket
    }

    /// Fetches, processes and encodes one rendition through the manager (which stores it on disk
    /// with the origin's validators, and revalidates it there once it expires).
    private func render(
        source: URL, original: Data?, cacheKey: String, key: String, processor: any ImageProcessor,
        serializer: RenditionSerializer
    ) async throws -> (Rendition, CacheTier) {
        let limits = self.limits
        let disk = manager.cache.diskStorage
        let mayKeep = keepsOriginals && original == nil && !source.isFileURL
        let originalKey = Self.originalKey(for: source)
        // Kept when another rendition of the source was made lately or is being made now, so a
        // source asked for at one size only never stores its original.
        let sharing = (processor as? RenditionProcessor)?.decodeShare.current
        let decodes = self.decodes
        let fetched = self.fetched
        let kept = Mutex(false)
        let guarded = GuardedProcessor(
            wrapped: processor, limits: limits, sourceFormat: serializer.sourceFormat,
            accepted: { bytes in
                guard mayKeep else { return }
                let seen = fetched.noteFetched(source.absoluteString)
                guard seen || sharing.map({ decodes.jobCount(of: $0.source) > 1 }) == true else { return }
                try? disk.store(value: bytes, forKey: originalKey)
                kept.withLock { $0 = true }
            },
            rejected: { if kept.withLock({ $0 }) { try? disk.remove(forKey: originalKey) } })
        var options: KingfisherOptionsInfo = [
            .processor(guarded),
            .cacheSerializer(serializer),
            .decodingLimits(ImageDecodingLimits(
                maxPixelsPerFrame: limits.maxPixelsPerFrame, maxFrameCount: limits.maxFrames,
                maxTotalAnimationPixels: limits.maxPixelsPerFrame.multipliedReportingOverflow(by: limits.maxFrames).overflow
                    ? Int.max : limits.maxPixelsPerFrame * limits.maxFrames)),
            .revalidateExpiredCache,
            .waitForCache,
        ]
        if let redirects { options.append(.redirectHandler(redirects)) }
        let location = S3Location(url: source)
        if location != nil, let s3 { options.append(.requestModifier(S3RequestSigner(configuration: s3))) }
        let retrievalOptions = options
        let received = Mutex<Int64>(0)
        let resource: Source
        if let original {
            resource = .provider(RawImageDataProvider(data: original, cacheKey: cacheKey))
        } else if source.isFileURL {
            resource = .provider(LocalFileImageDataProvider(fileURL: source, cacheKey: cacheKey))
        } else {
            resource = .network(KF.ImageResource(downloadURL: source, cacheKey: cacheKey))
        }
        let manager = self.manager
        let result: RetrieveImageResult
        do {
            result = try await Deadline.run(seconds: limits.processingTimeout, onTimeout: ImageServerError(
                .gatewayTimeout, "fetching and processing the image took longer than \(Self.seconds(limits.processingTimeout))"
            )) {
                try await manager.retrieveImage(with: resource, options: retrievalOptions) { receivedSize, _ in
                    received.withLock { $0 = max($0, receivedSize) }
                }
            }
        } catch {
            metrics.recordUpstream(bytes: received.withLock { $0 })
            if let refusal = redirects?.refusal(for: source) { throw refusal }
            let refusal = guarded.failure.error ?? (processor as? RenditionProcessor)?.failure.error
            if refusal == nil, let location, case .responseError(.invalidHTTPStatusCode(let response))? = error as? KingfisherError {
                throw ImageServerError(s3Status: response, location: location, configuration: s3)
            }
            var failure = ImageServerError(mapping: refusal ?? error, source: source)
            if case .processorError(.imageLimitExceeded)? = (refusal ?? error) as? KingfisherError {
                // The decoding limits are the ones this server was started with.
                failure.reason += " (kf serve --max-pixels, --max-frames)"
            }
            throw failure
        }
        metrics.recordUpstream(bytes: received.withLock { $0 })
        // An origin that allows no caching (max-age=0) leaves the rendition expired at once: its
        // original must not outlive it either.
        if kept.withLock({ $0 }), !disk.isCached(forKey: key) { try? disk.remove(forKey: originalKey) }
        // The manager has written the rendition to disk (waitForCache), or the origin confirmed
        // it (304): answer those bytes rather than encoding the image a second time. An entry
        // already expired (the origin said max-age=0) is left alone for the next revalidation.
        let stored = disk.isCached(forKey: key) ? try? disk.value(forKey: key, extendingExpiration: .none) : nil
        guard let bytes = stored ?? serializer.data(with: result.image, original: nil), !bytes.isEmpty else {
            throw ImageServerError(.internalServerError, "the processed image could not be encoded as \(serializer.rendering.token)")
        }
        let rendition = Rendition(bytes: bytes, key: key, lastModified: stored == nil ? Date() : storedDate(forKey: key))
        // A rendition enters memory on its second request, from the disk: most renditions are
        // asked for once (every size of every photo), and would only push the popular ones out.
        // One the disk did not keep (a full disk, say) has only memory to come from.
        if stored == nil { memory.store(rendition, forKey: key) }
        switch result.cacheType {
        case .none: return (rendition, original == nil ? .origin : .original)
        case .disk: return (rendition, .revalidated)
        case .memory: return (rendition, .memory)
        }
    }

    /// When the disk cache wrote `key`'s file, so that a rendition has one `Last-Modified`
    /// whichever tier answers it; now when the file system cannot tell.
    private func storedDate(forKey key: String) -> Date {
        let path = manager.cache.diskStorage.cacheFileURL(forKey: key).path
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date ?? Date()
    }

    /// `2 s`, `0.5 s`.
    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
