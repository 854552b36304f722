import Foundation

/// Turns the image clockwise by quarter turns (see ``KFCrossPlatformImage/rotated(quarterTurns:)``).
///
/// Any integer is taken modulo 4 (−1 turns counter-clockwise); a quarter or three-quarter turn swaps
/// width and height. Every frame of an animation is turned; the result has `options.scaleFactor`.
/// `nil` only when data does not decode.
public struct RotatingImageProcessor: ImageProcessor {
    /// Clockwise quarter turns as given.
    public let quarterTurns: Int

    /// `"com.onevcat.Kingfisher.RotatingImageProcessor(quarterTurns:N)"`, N taken modulo 4 into 0...3.
    public let identifier: String

    /// Makes a processor turning clockwise by `quarterTurns` × 90°.
    public init(quarterTurns: Int) {
        self.quarterTurns = quarterTurns
        identifier = "com.onevcat.Kingfisher.RotatingImageProcessor(quarterTurns:\(((quarterTurns % 4) + 4) % 4))"
    }

    /// The turned image at `options.scaleFactor`; `.data` is decoded first.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        item.decodedImage(options: options)?.rotated(quarterTurns: quarterTurns).kf.scaled(to: options.scaleFactor)
    }
}
