import Foundation
import Kingfisher

extension ThumborGrammar {
    /// The colour `fill(auto)`, `fill(blur)` and `background_color(auto)` use: thumbor computes a
    /// median colour or a blurred copy of the image, which a request cannot name before decoding.
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
            guard let color = color(call.arguments[0]) else { return }
            let fillTransparent = call.boolean(1)
            geometry.postSteps.append(.fill(color: color, fillTransparent: fillTransparent))
            if fillTransparent { filters.append(.background(color)) }
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
        default:
            if let filter = pixelFilter(call) { filters.append(filter) }
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

    /// `format(F)`: thumbor's formats plus `jxl`; HEIC/HEIF are not written here and become JPEG,
    /// and an unknown name puts the output back to the source's format, as thumbor does.
    static func output(named name: String) -> RenditionOutput {
        switch name.lowercased() {
        case "jpeg", "jpg", "heic", "heif": return .fixed(.JPEG)
        case "png": return .fixed(.PNG)
        case "gif": return .fixed(.GIF)
        case "webp": return .fixed(.WebP)
        case "avif": return .fixed(.AVIF)
        case "jxl": return .fixed(.JXL)
        default: return .source
        }
    }

    /// A colour argument; `auto` and `blur` take ``fallbackFillColor``.
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
