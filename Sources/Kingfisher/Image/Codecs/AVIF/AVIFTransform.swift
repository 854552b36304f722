import CLibAVIF
import Foundation

/// The geometric transforms an AVIF's primary item carries (`clap`, `irot`, `imir`), which libavif
/// 0.11 parses into `avifImage.transformFlags` but never applies to the pixels.
///
/// HEIF applies them in the order the item lists them, which MIAF fixes as crop, then rotation,
/// then mirror. The decoder does exactly that, once per frame: ``cropped(_:width:height:)`` on the
/// converted pixels, then ``orientation`` (the rotation followed by the mirror, as the header
/// probe reports it) on the frame, so the decoded image is upright and nothing turns it again.
///
/// `imir` is read as libavif 0.11's header documents its `mode` field (ISO/IEC 23008-12 Amendment 2):
/// 0 exchanges top and bottom (a mirror about a horizontal axis), 1 exchanges left and right.
/// `avifenc --imir 0` writes 0 and its help calls it "top-to-bottom". (The 2017 text called the
/// field `axis` with the opposite wording; libavif, libheif and browsers all follow the new reading.)
struct AVIFTransform: Sendable, Equatable {
    /// A rectangle of coded pixels, origin top left.
    struct Rect: Sendable, Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// The clean aperture to keep, or `nil` when there is no `clap`.
    var crop: Rect?
    /// `irot` anticlockwise quarter turns (0...3).
    var quarterTurns: Int
    /// `imir` mode (0 top-bottom, 1 left-right), or `nil` when there is no `imir`.
    var mirrorMode: Int?

    /// No transform at all.
    static let identity = AVIFTransform(crop: nil, quarterTurns: 0, mirrorMode: nil)

    /// The rotation and mirror as one orientation, applied after the crop.
    var orientation: ImageOrientation {
        imageOrientation(quarterTurns: quarterTurns, mirrorAxis: mirrorMode)
    }

    /// The transforms `image` declares; throws a description when its `clap` is not a whole-pixel
    /// rectangle inside the `image.width`×`image.height` coded picture.
    init(image: avifImage) throws(AVIFTransformError) {
        let flags = image.transformFlags
        if flags & AVIF_TRANSFORM_CLAP.rawValue != 0 {
            crop = try Self.cleanAperture(image.clap, width: Int(image.width), height: Int(image.height))
        } else {
            crop = nil
        }
        quarterTurns = flags & AVIF_TRANSFORM_IROT.rawValue != 0 ? Int(image.irot.angle & 0x03) : 0
        mirrorMode = flags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? Int(image.imir.mode & 0x01) : nil
    }

    init(crop: Rect?, quarterTurns: Int, mirrorMode: Int?) {
        self.crop = crop
        self.quarterTurns = quarterTurns
        self.mirrorMode = mirrorMode
    }

    /// The rectangle a `clap` box selects from a `width`×`height` picture (ISO/IEC 14496-12 12.1.4).
    ///
    /// The aperture is `widthN/widthD` × `heightN/heightD` pixels centred at
    /// `((width - 1) / 2 + horizOff, (height - 1) / 2 + vertOff)`, so its left edge is
    /// `(width - apertureWidth) / 2 + horizOffN / horizOffD`, computed here as one fraction. The
    /// offsets are signed 32-bit numerators. Sizes and edges must come out whole, inside the
    /// picture and non-empty; anything else (a zero denominator, a fraction, overflow) is refused.
    static func cleanAperture(_ clap: avifCleanApertureBox, width: Int, height: Int) throws(AVIFTransformError) -> Rect {
        guard clap.widthD != 0, clap.heightD != 0, clap.horizOffD != 0, clap.vertOffD != 0 else {
            throw AVIFTransformError("the clean aperture ('clap') has a zero denominator")
        }
        guard clap.widthN % clap.widthD == 0, clap.heightN % clap.heightD == 0 else {
            throw AVIFTransformError("the clean aperture ('clap') is \(clap.widthN)/\(clap.widthD) × "
                + "\(clap.heightN)/\(clap.heightD) pixels, not a whole number")
        }
        let apertureWidth = Int(clap.widthN / clap.widthD)
        let apertureHeight = Int(clap.heightN / clap.heightD)
        guard apertureWidth > 0, apertureHeight > 0, apertureWidth <= width, apertureHeight <= height else {
            throw AVIFTransformError("the clean aperture ('clap') of \(apertureWidth)×\(apertureHeight) pixels "
                + "does not fit the \(width)×\(height) picture")
        }
        guard let x = edge(spare: width - apertureWidth, offsetN: clap.horizOffN, offsetD: clap.horizOffD),
              let y = edge(spare: height - apertureHeight, offsetN: clap.vertOffN, offsetD: clap.vertOffD),
              x >= 0, y >= 0, x + apertureWidth <= width, y + apertureHeight <= height
        else {
            throw AVIFTransformError("the clean aperture ('clap') offsets do not put a whole-pixel "
                + "\(apertureWidth)×\(apertureHeight) rectangle inside the \(width)×\(height) picture")
        }
        return Rect(x: x, y: y, width: apertureWidth, height: apertureHeight)
    }

    /// `spare / 2 + offsetN / offsetD` as a whole number, or `nil` when it is a fraction or overflows.
    private static func edge(spare: Int, offsetN: UInt32, offsetD: UInt32) -> Int? {
        // The fraction (spare * offsetD + 2 * offsetN) / (2 * offsetD), offsetN signed.
        let numerator = Int(Int32(bitPattern: offsetN))
        let denominator = Int(offsetD)
        let (scaled, overflow1) = spare.multipliedReportingOverflow(by: denominator)
        let (total, overflow2) = scaled.addingReportingOverflow(2 * numerator)
        guard !overflow1, !overflow2, total % (2 * denominator) == 0 else { return nil }
        return total / (2 * denominator)
    }

    /// The size of a `width`×`height` coded picture once transformed.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let cropped = crop.map { ($0.width, $0.height) } ?? (width, height)
        return orientation.swapsDimensions ? (cropped.1, cropped.0) : cropped
    }

    /// Crops `pixels` (`width`×`height` RGBA8, rows packed) to the clean aperture; unchanged when
    /// there is none.
    func cropped(_ pixels: [UInt8], width: Int, height: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        guard let crop, crop != Rect(x: 0, y: 0, width: width, height: height) else { return (pixels, width, height) }
        let rowBytes = crop.width * 4
        let result = PixelMemory.bytes(count: rowBytes * crop.height) { target in
            pixels.withUnsafeBytes { source in
                guard let from = source.baseAddress, let to = target.baseAddress else { return }
                for row in 0..<crop.height {
                    let start = ((crop.y + row) * width + crop.x) * 4
                    UnsafeMutableRawPointer(to + row * rowBytes).copyMemory(from: from + start, byteCount: rowBytes)
                }
            }
        }
        return (result, crop.width, crop.height)
    }
}

/// Why an AVIF's transform properties cannot be applied.
struct AVIFTransformError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with them.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
