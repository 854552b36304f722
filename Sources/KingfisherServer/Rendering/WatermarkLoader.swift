import Foundation
import HTTPTypes
import Kingfisher

extension ImageServer {
    /// Refuses (with `refusedStatus`) a watermark whose URL is outside the allow-list.
    func checkWatermarkSources(_ watermarks: [RenditionWatermark], refusedStatus: HTTPResponse.Status) throws {
        for case .url(let url) in watermarks.map(\.image) where !configuration.allowedSources.allows(url) {
            throw ImageServerError(refusedStatus,
                                   "the watermark host '\(url.host ?? "")' is not in the allow-list (kf serve --allow-host)")
        }
    }

    /// Decodes or fetches every watermark image into `store`: a URL as sources are fetched (the
    /// address rules, redirects vetted, the manager's memory and disk caches under its own key), bytes
    /// decoded within the server's limits. A failure is answered with `failureStatus`.
    func loadWatermarks(_ watermarks: [RenditionWatermark], into store: WatermarkImages,
                        failureStatus: HTTPResponse.Status) async throws {
        let limits = configuration.limits
        let decoding = ImageDecodingLimits(maxPixelsPerFrame: limits.maxPixelsPerFrame, maxFrameCount: limits.maxFrames,
                                           maxTotalAnimationPixels: limits.maxPixelsPerFrame)
        for watermark in watermarks where store.image(for: watermark.image) == nil {
            switch watermark.image {
            case .bytes(let data, _):
                let creating = ImageCreatingOptions(onlyFirstFrame: true, limits: decoding)
                guard let image = try? KFCrossPlatformImage(data: data, options: creating) else {
                    throw ImageServerError(.internalServerError, "the server's watermark image cannot be decoded")
                }
                store.store(image, for: watermark.image)
            case .url(let url):
                try await addressGuard.check(host: url.host ?? "")
                var options: KingfisherOptionsInfo = [.decodingLimits(decoding), .revalidateExpiredCache]
                options.append(.redirectHandler(pipeline.redirects ?? RedirectVetting(
                    allowedSources: configuration.allowedSources, addressGuard: addressGuard)))
                let resource = KF.ImageResource(downloadURL: url, cacheKey: "kfserve-watermark:\(url.absoluteString)")
                do {
                    let result = try await manager.retrieveImage(with: .network(resource), options: options)
                    store.store(result.image, for: watermark.image)
                } catch {
                    let mapped = pipeline.redirects?.refusal(for: url) ?? ImageServerError(mapping: error, source: url)
                    throw ImageServerError(failureStatus, "the watermark could not be loaded: \(mapped.reason)")
                }
            }
        }
    }
}

extension RenditionRequest {
    /// The watermarks among the operations, in order.
    var watermarks: [RenditionWatermark] {
        operations.compactMap { operation in
            if case .filter(.watermark(let watermark)) = operation { return watermark }
            return nil
        }
    }
}
