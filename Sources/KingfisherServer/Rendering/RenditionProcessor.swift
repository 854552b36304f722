import Foundation
import Kingfisher

/// Runs a ``RenditionRequest``'s operations on the source, as one `ImageProcessor` for the
/// manager's pipeline.
///
/// When the first operation is geometry that shrinks the image, the source is decoded already
/// reduced (a JPEG at 1/2, 1/4 or 1/8, a WebP to any size) and the geometry's crop rectangles are
/// scaled to the decoded size, so a 2K photo asked for at 512 px never exists at full size. The
/// resolved sizes are those of the full-size source, so every grammar's rounding is kept.
struct RenditionProcessor: ImageProcessor {
    let operations: [RenditionOperation]
    let identifier: String
    /// The most pixels a geometry step or padding may produce (URLs can ask for any size).
    let maxOutputPixels: Int
    /// Why the last image was refused, when an operation would have made it too large.
    let failure = FailureBox()
    /// The images of the watermark filters, fetched before processing.
    let watermarks: WatermarkImages
    /// The decodes other jobs of the same source share, when the pipeline attached them.
    let decodeShare = DecodeShareBox()
    /// The processors of the `.spec` operations, by operation index.
    private let specProcessors: [Int: any ImageProcessor]

    /// A processor for `operations`, drawing watermarks from `watermarks`.
    ///
    /// - Throws: ``ImageServerError`` (400) when a `.spec` operation does not parse.
    init(operations: [RenditionOperation], maxOutputPixels: Int = .max, watermarks: WatermarkImages = WatermarkImages()) throws {
        self.operations = operations
        self.maxOutputPixels = maxOutputPixels
        self.watermarks = watermarks
        var processors: [Int: any ImageProcessor] = [:]
        var parts: [String] = []
        for (index, operation) in operations.enumerated() {
            switch operation {
            case .spec(let text):
                do {
                    let processor = try ProcessorSpec(parsing: text).processor(readsFiles: false)
                    processors[index] = processor
                    parts.append(processor.identifier)
                } catch let error as ProcessorSpecError {
                    throw ImageServerError(.badRequest, "bad processor spec: \(error.description)")
                }
            case .geometry(let geometry): parts.append("geometry(\(geometry.description))")
            case .step(let step): parts.append("step(\(step))")
            case .filter(let filter): parts.append("filter(\(filter))")
            }
        }
        specProcessors = processors
        if operations.count == 1, case .spec = operations[0], let only = parts.first {
            // The server's own grammar keeps the cache keys it has always had.
            identifier = only
        } else {
            identifier = parts.isEmpty ? "" : "kfserve.rendition(\(parts.joined(separator: "|")))"
        }
    }

    /// Whether the first operation is geometry, whose source is decoded reduced.
    var startsWithGeometry: Bool {
        if case .geometry? = operations.first { return true }
        return false
    }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        var image: KFCrossPlatformImage
        var next = 0
        switch item {
        case .image(let decoded):
            image = decoded
        case .data(let data):
            if case .spec = operations.first, let processor = specProcessors[0] {
                // The spec's own processor decodes (a downsample scales while decoding).
                guard let processed = processor.process(item: item, options: options) else { return nil }
                image = processed
                next = 1
            } else if case .geometry(let geometry)? = operations.first {
                guard let reduced = decodeReduced(data, geometry: geometry, options: options) else { return nil }
                image = reduced
                next = 1
            } else {
                guard let decoded = try? KFCrossPlatformImage(data: data, options: options.imageCreatingOptions) else { return nil }
                image = decoded
            }
        }
        // Where a trim left the image's origin, for the geometry after it (a manual crop).
        var trimmedOrigin = (x: 0, y: 0)
        for index in operations.indices.dropFirst(next) {
            switch operations[index] {
            case .spec:
                guard let processor = specProcessors[index],
                      let processed = processor.process(item: .image(image), options: options) else { return nil }
                image = processed
            case .geometry(let geometry):
                let steps = geometry.rule.steps(width: image.pixelWidth, height: image.pixelHeight, trimmedAt: trimmedOrigin)
                guard allows(steps) else { return nil }
                image = GeometryExecutor.apply(steps, to: image)
            case .filter(.trim(let corner, let tolerance)):
                guard let box = TrimExecutor.box(of: image, corner: corner, tolerance: tolerance) else { continue }
                image = GeometryExecutor.apply([.crop(x: box.x, y: box.y, width: box.width, height: box.height)], to: image)
                trimmedOrigin = (trimmedOrigin.x + box.x, trimmedOrigin.y + box.y)
            case .filter(.watermark(let watermark)):
                guard let mark = watermarks.image(for: watermark.image) else {
                    failure.record(ImageServerError(.internalServerError, "the watermark \(watermark.image) was not loaded"))
                    return nil
                }
                if watermark.subtractsAlpha {
                    let transparency = Int(((1 - watermark.opacity) * 100).rounded())
                    image = image.kf.watermarked(with: WatermarkAlpha.lowered(mark, by: 255 * transparency / 100), opacity: 1,
                                                 x: watermark.x, y: watermark.y, scale: watermark.scale)
                } else {
                    image = image.kf.watermarked(with: mark, opacity: CGFloat(watermark.opacity), x: watermark.x, y: watermark.y,
                                                 scale: watermark.scale)
                }
            case .step(let step):
                guard allows([step]) else { return nil }
                image = GeometryExecutor.apply([step], to: image)
            case .filter(let filter):
                if case .pad(let top, let right, let bottom, let left, _) = filter {
                    let width = image.pixelWidth.addingClamped(max(0, left)).addingClamped(max(0, right))
                    let height = image.pixelHeight.addingClamped(max(0, top)).addingClamped(max(0, bottom))
                    guard allows(width: width, height: height) else { return nil }
                }
                guard let filtered = FilterExecutor.apply(filter, to: image, options: options) else { return nil }
                image = filtered
            }
        }
        return image
    }

    /// Whether every size `steps` produce is within ``maxOutputPixels``; records the refusal when not.
    private func allows(_ steps: [GeometryStep]) -> Bool {
        steps.allSatisfy { step in
            switch step {
            case .scale(let width, let height), .extend(let width, let height, _, _, _),
                 .fill(let width, let height, _, _, _, _):
                return allows(width: width, height: height)
            case .crop, .smartCrop, .flip, .rotate:
                return true
            }
        }
    }

    /// Whether a `width`×`height` result is within ``maxOutputPixels``; records the refusal when not.
    private func allows(width: Int, height: Int) -> Bool {
        let pixels = max(width, 1).multipliedReportingOverflow(by: max(height, 1))
        guard pixels.overflow || pixels.partialValue > maxOutputPixels else { return true }
        failure.record(ImageServerError(.unprocessableContent,
            "the requested image would be \(width)×\(height), over the limit of \(maxOutputPixels) pixels per frame (kf serve --max-pixels)"))
        return false
    }

    /// Decodes `data` as small as `geometry`'s first resize allows (or takes that decode from
    /// another job of the same source) and runs the geometry on it.
    private func decodeReduced(_ data: Data, geometry: RenditionGeometry,
                               options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        var creating = options.imageCreatingOptions
        guard let header = try? ImageHeader(data: data) else {
            guard let image = try? KFCrossPlatformImage(data: data, options: creating) else { return nil }
            let steps = geometry.rule.steps(width: image.pixelWidth, height: image.pixelHeight)
            return allows(steps) ? GeometryExecutor.apply(steps, to: image) : nil
        }
        let upright = header.orientedPixelSize
        let steps = geometry.rule.steps(width: upright.width, height: upright.height)
        guard allows(steps) else { return nil }
        if let factor = GeometryExecutor.reduction(of: steps, width: upright.width, height: upright.height), factor < 1 {
            creating.minimumPixelSize = CGSize(width: (Double(upright.width) * factor).rounded(.up),
                                               height: (Double(upright.height) * factor).rounded(.up))
        }
        let image: KFCrossPlatformImage
        let share = decodeShare.current
        let decodedSize = share == nil ? nil : header.decodedPixelSize(minimum: creating.minimumPixelSize)
        if let share, let decodedSize, let kept = share.image(width: decodedSize.width, height: decodedSize.height) {
            image = kept
        } else {
            guard let decoded = try? KFCrossPlatformImage(data: data, options: creating) else { return nil }
            if let share, let decodedSize { share.keep(decoded, width: decodedSize.width, height: decodedSize.height) }
            image = decoded
        }
        // The next job of this source may fetch and decode now.
        share?.decoded()
        if image.pixelWidth == upright.width && image.pixelHeight == upright.height {
            return GeometryExecutor.apply(steps, to: image)
        }
        let scaleX = Double(image.pixelWidth) / Double(max(upright.width, 1))
        let scaleY = Double(image.pixelHeight) / Double(max(upright.height, 1))
        return GeometryExecutor.apply(GeometryExecutor.rescaling(steps, x: scaleX, y: scaleY), to: image)
    }
}

extension Int {
    /// `self + other`, or `Int.max` when that overflows.
    func addingClamped(_ other: Int) -> Int {
        let sum = addingReportingOverflow(other)
        return sum.overflow ? .max : sum.partialValue
    }
}
