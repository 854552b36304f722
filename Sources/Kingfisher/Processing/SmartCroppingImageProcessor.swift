import Foundation

/// Crops images to a size in points, keeping the part most likely to hold the subject.
///
/// Where ``CroppingImageProcessor`` places the crop by a fixed anchor, this one places it where
/// ``KFCrossPlatformImage/smartCropRect(width:height:)`` finds the most edges, skin tones and
/// saturated colour (the "attention" heuristic of libvips; imgproxy's `g:sm`). The result is
/// exactly `size × options.scaleFactor` pixels, or smaller where the image is smaller: it is a
/// crop, never a resize. Animations are cropped frame by frame, all with the rectangle found
/// on the first frame.
public struct SmartCroppingImageProcessor: ImageProcessor {
    /// `"com.onevcat.Kingfisher.SmartCroppingImageProcessor((width, height))"`.
    public let identifier: String

    /// The size of the result in points.
    public let size: CGSize

    /// Makes a processor cropping to `size` points.
    public init(size: CGSize) {
        self.size = size
        identifier = "com.onevcat.Kingfisher.SmartCroppingImageProcessor(\(size.identifierDescription))"
    }

    /// The image at `options.scaleFactor`, smart-cropped; `.data` is decoded first. A size that is
    /// not finite or under one pixel leaves the image as it is. `nil` only when data does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = item.decodedImage(options: options) else { return nil }
        let scaled = image.kf.scaled(to: options.scaleFactor)
        guard let pixels = KingfisherWrapper<KFCrossPlatformImage>.pixelSize(of: size, scale: scaled.scale)
        else { return scaled }
        return scaled.smartCropped(width: pixels.width, height: pixels.height)
    }
}

extension KFCrossPlatformImage {
    /// The `width × height` pixel region of the first frame that best keeps the subject, in pixels
    /// with whole-number coordinates, origin top left.
    ///
    /// The first frame is box-averaged to at most 256 pixels on its longer side; each part of it is
    /// scored for edge strength, skin tones and saturated colour, and the window of the requested
    /// size holding the highest total wins (all positions are tried). Windows within 1/512 of the
    /// best count as equal and the one nearest the centre is chosen, so a uniform image gets a
    /// centred rectangle. A `width` or `height` of 0 or less, or larger than the image, is taken
    /// as the image's own. To crop an animation, cut every frame with this one rectangle.
    public func smartCropRect(width: Int, height: Int) -> CGRect {
        let frame = firstFrame
        let cropWidth = width > 0 ? min(width, frame.width) : frame.width
        let cropHeight = height > 0 ? min(height, frame.height) : frame.height
        guard cropWidth < frame.width || cropHeight < frame.height else {
            return CGRect(x: 0, y: 0, width: frame.width, height: frame.height)
        }
        let origin = SaliencyMap(frame: frame).bestWindow(width: cropWidth, height: cropHeight,
                                                          frameWidth: frame.width, frameHeight: frame.height)
        return CGRect(x: origin.x, y: origin.y, width: cropWidth, height: cropHeight)
    }

    /// Every frame cut to ``smartCropRect(width:height:)``; the image itself when that is all of it.
    func smartCropped(width: Int, height: Int) -> KFCrossPlatformImage {
        let rect = smartCropRect(width: width, height: height)
        let (x, y, w, h) = (Int(rect.minX), Int(rect.minY), Int(rect.width), Int(rect.height))
        guard w != pixelWidth || h != pixelHeight else { return self }
        return mapFrames { $0.cropped(x: x, y: y, width: w, height: h) } ?? self
    }
}
