import CLibHEIF
import Foundation

/// Picks a thumbnail item to decode instead of the primary image when a caller asks for a smaller
/// image (``ImageCreatingOptions/minimumPixelSize``), as libvips does for HEIC thumbnails.
///
/// Phones store a thumbnail of a few hundred pixels next to each photo; decoding it costs a tiny
/// fraction of the 12-megapixel primary image. A thumbnail is used only when it stands for the
/// same picture the primary image shows: it must be turned and mirrored as the primary is (its own
/// `irot` and `imir` read from the file match), have the primary's upright aspect ratio to within
/// rounding, have alpha when the primary has it (`heif-enc --no-thumb-alpha` drops it), and,
/// upright, be at least the minimum in every bounded direction.
enum HEICThumbnailChoice {
    /// The handle of the smallest fitting thumbnail of `primary`, which the caller releases; `nil`
    /// when the full image must be decoded.
    static func pick(for primary: HEIFLibrary.Handle, minimum: CGSize?, layout: ISOBMFFLayout?,
                     library: HEIFLibrary) -> HEIFLibrary.Handle? {
        guard let minimum, let meta = layout?.meta, let primaryID = meta.primaryItemID,
              bound(minimum.width) != nil || bound(minimum.height) != nil
        else { return nil }
        let count = Int(library.numberOfThumbnails(primary))
        guard count > 0, count <= 64 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(library.thumbnailIDs(primary, &ids, Int32(count)))
        let primarySize = (width: Int(library.handleWidth(primary)), height: Int(library.handleHeight(primary)))
        let primaryOrientation = orientation(of: primaryID, in: meta)
        let needsAlpha = library.handleHasAlpha(primary) != 0

        var best: (handle: HEIFLibrary.Handle, pixels: Int)?
        for id in ids.prefix(max(0, min(filled, count))) where orientation(of: id, in: meta) == primaryOrientation {
            var handle: HEIFLibrary.Handle?
            guard library.thumbnail(primary, id, &handle).succeeded, let handle else { continue }
            let size = (width: Int(library.handleWidth(handle)), height: Int(library.handleHeight(handle)))
            let keepsAlpha = !needsAlpha || library.handleHasAlpha(handle) != 0
            if keepsAlpha, fits(size, primary: primarySize, minimum: minimum),
               best.map({ size.width * size.height < $0.pixels }) ?? true {
                if let previous = best { library.handleRelease(previous.handle) }
                best = (handle, size.width * size.height)
            } else {
                library.handleRelease(handle)
            }
        }
        return best?.handle
    }

    /// True when a thumbnail of upright `size` may stand in for a `primary`-sized image under `minimum`.
    static func fits(_ size: (width: Int, height: Int), primary: (width: Int, height: Int), minimum: CGSize) -> Bool {
        guard size.width > 0, size.height > 0, primary.width > 0, primary.height > 0,
              size.width <= primary.width, size.height <= primary.height,
              size.width < primary.width || size.height < primary.height
        else { return false }
        // Scaled by s, each side is off by at most a pixel of rounding, so the cross products of
        // the sides differ by at most the sum of the primary's sides.
        let crossDifference = abs(size.width * primary.height - size.height * primary.width)
        guard crossDifference <= primary.width + primary.height else { return false }
        if let needWidth = bound(minimum.width), size.width < needWidth { return false }
        if let needHeight = bound(minimum.height), size.height < needHeight { return false }
        return true
    }

    /// A minimum dimension in whole pixels, rounded up, or `nil` when it sets no bound.
    private static func bound(_ value: CGFloat) -> Int? {
        guard value.isFinite, value > 0 else { return nil }
        return value >= CGFloat(Int32.max) ? Int(Int32.max) : Int(value.rounded(.up))
    }

    /// The turn and mirror the file's `irot` and `imir` give item `id`.
    private static func orientation(of id: UInt32, in meta: ISOBMFFMeta) -> ImageOrientation {
        var quarterTurns = 0
        var mirrorAxis: Int?
        for property in meta.properties(of: id) {
            switch property {
            case let .rotation(turns): quarterTurns = turns
            case let .mirror(axis): mirrorAxis = axis
            default: break
            }
        }
        return imageOrientation(quarterTurns: quarterTurns, mirrorAxis: mirrorAxis)
    }
}
