import Foundation
import Kingfisher

extension ThumborGrammar {
    /// The colour `background_color(auto)` uses: thumbor computes it from the pixels, which a
    /// request cannot name before decoding.
    static let fallbackFillColor = RenditionColor.white

    /// Applies one well-formed filter: output settings to `request`, geometry to `geometry`, pixel
    /// filters (run after the geometry, in URL order) to `filters`.
    static func apply(_ call: ThumborFilterCall, to request: inout RenditionRequest,
                      geometry: inout ThumborGeometry, filters: inout [RenditionFilter]) {
        switch call.name {
        case "format":
            request.output = output(named: String(call.arguments[0]))
        case "quality":
            request.quality = Double(min(call.integer(0) ?? 100, 100)) / 100
        case "max_bytes":
            let bytes = call.integer(0) ?? 0
            request.maxBytes = bytes > 0 ? bytes : nil
        case "max_age":
            request.headers.maxAge = call.integer(0)
        case "no_upscale":
            geometry.noUpscale = true
        case "upscale":
            geometry.postSteps.append(.upscale)
        case "stretch":
            geometry.stretch = true
        case "fill":
            guard let canvas = fill(call.arguments[0]) else { return }
            geometry.postSteps.append(.fill(canvas, fillTransparent: call.boolean(1)))
        case "background_color":
            if let color = color(call.arguments[0]) { filters.append(.background(color)) }
        case "rotate":
            if let degrees = call.integer(0), degrees % 90 == 0, degrees % 360 != 0 {
                geometry.postSteps.append(.rotate(degrees: degrees))
            }
        case "proportion":
            if let factor = call.decimal(0), factor > 0, factor <= 1 { geometry.postSteps.append(.proportion(factor: factor)) }
        case "focal":
            if let region = focalRegion(call.arguments[0]) { geometry.focalRegions.append(region) }
        case "watermark":
            if let watermark = watermark(call) { filters.append(.watermark(watermark)) }
        default:
            if let filter = pixelFilter(call) { filters.append(filter) }
        }
    }

    /// `fill(C)`'s canvas: a colour, `auto` (the image's average colour) or `blur` (the image
    /// blurred as thumbor's `blur(50)` blurs, stretched to the canvas).
    static func fill(_ word: Substring) -> RenditionFill? {
        switch word {
        case "auto": return .average
        case "blur": return .blurred(sigma: blurSigma(radius: 50, sigma: 0))
        default: return ThumborColor.parse(word).map { .color($0) }
        }
    }

    /// `watermark(url,x,y,alpha[,w_ratio,h_ratio])`: `x`/`y` from the left/top, from the right/bottom
    /// when negative, `Np` for N % of the side, `center` or `repeat`; `alpha` 0...100 is how
    /// transparent the watermark is; the ratios (percent, `none` for no limit) fit it inside that share
    /// of the image.
    static func watermark(_ call: ThumborFilterCall) -> RenditionWatermark? {
        guard let url = try? ThumborImageURI.url(fromRaw: call.arguments[0]) else { return nil }
        let transparency = min(call.integer(3) ?? 0, 100)
        func ratio(_ index: Int) -> Double? {
            guard index < call.arguments.count, call.arguments[index] != "none", let percent = call.integer(index),
                  percent != 0 else { return nil }
            return Double(percent) / 100
        }
        return RenditionWatermark(image: .url(url), opacity: Double(100 - transparency) / 100,
                                  x: watermarkAxis(call.arguments[1]), y: watermarkAxis(call.arguments[2]),
                                  scale: WatermarkScale(width: ratio(4), height: ratio(5)), subtractsAlpha: true)
    }

    /// One of `watermark`'s positions: `center`, `repeat`, `[-]N` pixels or `[-]Np` percent.
    static func watermarkAxis(_ text: Substring) -> WatermarkAxis {
        switch text {
        case "center": return .center(.pixels(0))
        case "repeat": return .spread
        default:
            let negative = text.first == "-"
            var digits = negative ? text.dropFirst() : text
            let percent = digits.last == "p"
            if percent { digits = digits.dropLast() }
            let value = ThumborPath.number(digits)
            let offset: WatermarkOffset = percent ? .fraction(Double(value) / 100) : .pixels(value)
            return negative ? .end(offset) : .start(offset)
        }
    }

    /// The pixel filters: `blur`, `sharpen`, `grayscale`, `brightness`, `contrast`, `round_corner`.
    static func pixelFilter(_ call: ThumborFilterCall) -> RenditionFilter? {
        switch call.name {
        case "blur":
            let sigma = blurSigma(radius: call.integer(0) ?? 1, sigma: abs(call.decimal(1) ?? 0))
            return sigma > 0 ? .blur(sigma: sigma) : nil
        case "sharpen":
            guard let amount = call.decimal(0), amount != 0, let radius = call.decimal(1), radius > 0 else { return nil }
            return .sharpen(sigma: min(radius, 150))
        case "grayscale":
            return .grayscale
        case "brightness":
            return .brightness(min(max(call.integer(0) ?? 0, -100), 100))
        case "contrast":
            return .contrast(min(max(call.integer(0) ?? 0, -100), 100))
        case "round_corner":
            let radii = call.arguments[0].split(separator: "|").map { ThumborPath.number($0) }
            let channel = { (index: Int) in UInt8(min(call.integer(index) ?? 0, 255)) }
            let color = call.boolean(4) ? RenditionColor.clear : RenditionColor(red: channel(1), green: channel(2), blue: channel(3))
            return .roundCorner(horizontal: radii.first ?? 0, vertical: radii.last ?? 0, color: color)
        default:
            return nil
        }
    }

    /// `format(F)`: thumbor's formats plus `jxl`; HEIC/HEIF, which the server does not write, keep
    /// the source's format (at ``ThumborGrammar/heifQuality`` unless `quality()` is given), as thumbor
    /// answers when its engine has no HEIF encoder (pillow-heif), and an unknown name puts the
    /// output back to the source's format, as thumbor does.
    static func output(named name: String) -> RenditionOutput {
        switch name.lowercased() {
        case "jpeg", "jpg": return .fixed(.JPEG)
        case "png": return .fixed(.PNG)
        case "gif": return .fixed(.GIF)
        case "webp": return .fixed(.WebP)
        case "avif": return .fixed(.AVIF)
        case "jxl": return .fixed(.JXL)
        default: return .source
        }
    }

    /// A colour argument of `background_color`; `auto` and `blur` take ``fallbackFillColor``.
    static func color(_ word: Substring) -> RenditionColor? {
        word == "auto" || word == "blur" ? fallbackFillColor : ThumborColor.parse(word)
    }

    /// `focal(LxT:RxB)`: the rectangle at the start of the argument, when neither side is empty.
    static func focalRegion(_ text: Substring) -> ThumborGeometry.Edges? {
        var rest = text
        func number() -> Int? {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { return nil }
            rest = rest.dropFirst(digits.count)
            return ThumborPath.number(digits)
        }
        func literal(_ character: Character) -> Bool {
            guard rest.first == character else { return false }
            rest = rest.dropFirst()
            return true
        }
        guard let left = number(), literal("x"), let top = number(), literal(":"), let right = number(), literal("x"),
              let bottom = number(), right != left, bottom != top else { return nil }
        return ThumborGeometry.Edges(left: left, top: top, right: right, bottom: bottom)
    }

    /// The standard deviation of thumbor's blur kernel: a Gaussian of `sigma` (0: `radius`) cut at
    /// `radius` pixels (at most 150), so `blur(R)` is far narrower than a Gaussian of σ = R.
    static func blurSigma(radius: Int, sigma: Double) -> Double {
        let sigma = sigma == 0 ? Double(radius) : sigma
        let extent = min(max(radius, 1), 150)
        let twoSigmaSquared = 2 * sigma * sigma
        var weights = 0.0, moments = 0.0
        for offset in -extent...extent {
            let distance = Double(offset * offset)
            let weight = exp(-distance / twoSigmaSquared)
            weights += weight
            moments += distance * weight
        }
        return weights > 0 ? (moments / weights).squareRoot() : 0
    }
}
