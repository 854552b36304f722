import Crypto
import Foundation
import Kingfisher

/// imgproxy's `watermark`/`wm` option: `wm:OPACITY[:POSITION[:X_OFFSET[:Y_OFFSET[:SCALE]]]]`.
///
/// `OPACITY` (0...1) multiplies `IMGPROXY_WATERMARK_OPACITY`; 0 draws nothing. `POSITION` is a
/// compass gravity (`ce`, the default, `no`, `so`, `ea`, `we`, `noea`, `nowe`, `soea`, `sowe`) or
/// `re` (repeated over the image, the offsets then the gaps between copies). Offsets of 1 or more in
/// size are pixels (times `dpr`), smaller ones fractions of the image's side. `SCALE` fits the
/// watermark inside that share of the image's width and height.
struct ImgproxyWatermarkOption: Sendable, Hashable {
    /// How opaque, 0...1.
    var opacity = 0.0
    /// `re` or a compass gravity.
    var position = "ce"
    /// The horizontal offset.
    var x = 0.0
    /// The vertical offset.
    var y = 0.0
    /// The share of the image the watermark may take; 0 keeps its size.
    var scale = 0.0

    /// The positions `wm` takes.
    static let positions: Set<String> = ["ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe", "re"]

    /// Parses the option's arguments, as imgproxy's `applyWatermarkOption` does.
    static func parse(_ name: String, _ args: [String]) throws -> ImgproxyWatermarkOption {
        try ImgproxyArguments.atMost(7, name, args)
        var option = ImgproxyWatermarkOption()
        guard let opacity = Double(args[0]), opacity.isFinite, (0...1).contains(opacity) else {
            throw ImgproxyArguments.invalid("invalid \(name): \(args[0]) (expected number in range 0-1)")
        }
        option.opacity = opacity
        if args.count > 1, !args[1].isEmpty {
            guard positions.contains(args[1]) else {
                throw ImgproxyArguments.invalid("invalid \(name) position: \(args[1])")
            }
            option.position = args[1]
        }
        if args.count > 2, !args[2].isEmpty { option.x = try ImgproxyArguments.number(name, args[2]) }
        if args.count > 3, !args[3].isEmpty { option.y = try ImgproxyArguments.number(name, args[3]) }
        if args.count > 4, !args[4].isEmpty { option.scale = try ImgproxyArguments.positiveNumber(name, args[4]) }
        return option
    }

    /// The watermark this option draws with `image` at the configured `opacity`, offsets in
    /// pixels multiplied by `dpr`; `nil` when it draws nothing.
    func watermark(image: RenditionWatermark.Image?, opacity configured: Double, dpr: Double) -> RenditionWatermark? {
        guard let image, opacity > 0 else { return nil }
        func offset(_ value: Double) -> WatermarkOffset {
            abs(value) >= 1 ? .pixels(ImgproxyMath.roundToEven(value * dpr)) : .fraction(value)
        }
        let x: WatermarkAxis, y: WatermarkAxis
        if position == "re" {
            (x, y) = (.tiled(gap: offset(self.x)), .tiled(gap: offset(self.y)))
        } else {
            x = position.hasSuffix("we") ? .start(offset(self.x)) : position.hasSuffix("ea") ? .end(offset(self.x)) : .center(offset(self.x))
            y = position.hasPrefix("no") ? .start(offset(self.y)) : position.hasPrefix("so") ? .end(offset(self.y)) : .center(offset(self.y))
        }
        let scale = self.scale > 0 ? WatermarkScale(width: self.scale, height: self.scale) : .original
        return RenditionWatermark(image: image, opacity: min(1, opacity * configured), x: x, y: y, scale: scale)
    }
}

extension ImgproxyConfiguration {
    /// The watermark image of `IMGPROXY_WATERMARK_DATA` (base64), `_PATH` (read now) or `_URL`,
    /// the first one set, as imgproxy picks it; `nil` when none is.
    static func watermarkImage(_ env: ImgproxyEnvironment) throws -> RenditionWatermark.Image? {
        if let text = env.string("IMGPROXY_WATERMARK_DATA"), !text.isEmpty {
            guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ImgproxyConfigurationError("IMGPROXY_WATERMARK_DATA must be base64-encoded image data")
            }
            return .bytes(data, digest: digest(data))
        }
        if let path = env.string("IMGPROXY_WATERMARK_PATH"), !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ImgproxyConfigurationError("IMGPROXY_WATERMARK_PATH: '\(path)' cannot be read")
            }
            return .bytes(data, digest: digest(data))
        }
        if let text = env.string("IMGPROXY_WATERMARK_URL"), !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw ImgproxyConfigurationError("IMGPROXY_WATERMARK_URL must be an http(s) URL, not '\(text)'")
            }
            return .url(url)
        }
        return nil
    }

    /// The first 16 hex digits of the SHA-256 of `data`.
    static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).prefix(8).map { String(format: "%02x", $0) }.joined()
    }
}
