import Foundation

/// What an image's header says, read without decoding any pixel.
public struct ImageHeader: Sendable, Hashable {
    /// The container format.
    public var format: ImageFormat
    /// Width in pixels as stored (before EXIF orientation is applied).
    public var pixelWidth: Int
    /// Height in pixels as stored (before EXIF orientation is applied).
    public var pixelHeight: Int
    /// Frames in the file; 1 for a still image. For GIF this counts image descriptors without
    /// decompressing them.
    public var frameCount: Int
    /// Animation loop count (0 = forever); 0 for a still image.
    public var loopCount: Int
    /// The EXIF orientation, `.up` when there is none.
    public var orientation: ImageOrientation
    /// True when the format says the image may have transparent pixels.
    public var hasAlpha: Bool
    /// How long each frame of an animation shows, in seconds, after Kingfisher's rule (a delay of
    /// 0.011 s or less, or none, shows for 0.1 s); empty for a still image.
    public var frameDurations: [TimeInterval] = []

    /// The pixel size once the orientation is applied.
    public var orientedPixelSize: (width: Int, height: Int) {
        orientation.swapsDimensions ? (pixelHeight, pixelWidth) : (pixelWidth, pixelHeight)
    }

    /// Reads the header of `data`; throws a ``KingfisherError`` when the data is empty, of unknown
    /// format, or too damaged to read a header from.
    public init(data: Data) throws {
        self = try ImageCodecs.probe(data)
    }

    init(format: ImageFormat, pixelWidth: Int, pixelHeight: Int, frameCount: Int = 1, loopCount: Int = 0,
         orientation: ImageOrientation = .up, hasAlpha: Bool) {
        self.format = format
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.orientation = orientation
        self.hasAlpha = hasAlpha
    }
}
