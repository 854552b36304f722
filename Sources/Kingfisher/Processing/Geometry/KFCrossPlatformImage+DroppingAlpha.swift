import Foundation

extension KFCrossPlatformImage {
    /// The image made opaque by discarding its alpha channel: each pixel keeps its own colour at
    /// full opacity, as tools that write a transparent image to JPEG without compositing show it.
    ///
    /// A pixel with alpha 0 carries no colour and becomes black. To lay the image over a colour
    /// instead, use ``CompositingImageProcessor``. An opaque image is returned as it is.
    public func droppingAlpha() -> KFCrossPlatformImage {
        guard !isOpaque else { return self }
        let opaque = frames.map { frame in
            var pixels = PixelConversion.unpremultiplied(frame.pixels)
            pixels.withUnsafeMutableBytes { bytes in
                for index in stride(from: 3, to: bytes.count, by: 4) { bytes[index] = 255 }
            }
            return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
        }
        return KFCrossPlatformImage(validated: opaque, loopCount: loopCount, scale: scale, isOpaque: true)
    }
}
