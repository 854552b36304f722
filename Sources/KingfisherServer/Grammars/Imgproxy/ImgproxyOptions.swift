import Foundation
import Kingfisher

/// The processing options of one imgproxy URL, as its option segments and presets leave them.
struct ImgproxyOptions {
    /// Geometry and the colour of extended areas.
    var geometry = ImgproxyGeometry()
    /// `bl` sigma; 0 is none.
    var blur = 0.0
    /// `sh` sigma; 0 is none.
    var sharpen = 0.0
    /// `q`; 0 takes the default.
    var quality = 0
    /// `fq` per-format qualities.
    var formatQuality: [ImageFormat: Int] = [:]
    /// `mb`; 0 is none.
    var maxBytes = 0
    /// `f`/`ext` or the URL's extension.
    var format: ImgproxyFormatName?
    /// `exp`.
    var expires: Date?
    /// `fn`.
    var fileName: String?
    /// `att`.
    var attachment = false
    /// `wm`.
    var watermark = ImgproxyWatermarkOption()

    /// Applies the option segments `segments` (`name:arg:arg`), presets through `presets`.
    mutating func apply(segments: [Substring], presets: ImgproxyPresets, now: Date) throws {
        for segment in segments {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            try apply(name: parts[0], args: Array(parts.dropFirst()), presets: presets, now: now)
        }
    }

    /// Applies one option, as imgproxy's `applyURLOption` does.
    mutating func apply(name: String, args: [String], presets: ImgproxyPresets, now: Date,
                        usedPresets: [String] = []) throws {
        typealias A = ImgproxyArguments
        let args = args.isEmpty ? [""] : args
        switch name {
        case "resize", "rs":
            try A.atMost(8, name, args)
            if !args[0].isEmpty { try applyResizingType(name, [args[0]]) }
            if args.count > 1 { try applySize(name, Array(args.dropFirst())) }
        case "size", "s": try applySize(name, args)
        case "resizing_type", "rt": try applyResizingType(name, args)
        case "width", "w": geometry.width = try A.nonNegativeInt(name, args)
        case "height", "h": geometry.height = try A.nonNegativeInt(name, args)
        case "min-width", "mw": geometry.minWidth = try A.nonNegativeInt(name, args)
        case "min-height", "mh": geometry.minHeight = try A.nonNegativeInt(name, args)
        case "zoom", "z":
            try A.atMost(2, name, args)
            geometry.zoomWidth = try A.positiveNumber(name, args[0])
            geometry.zoomHeight = args.count > 1 ? try A.positiveNumber(name, args[1]) : geometry.zoomWidth
        case "dpr":
            try A.atMost(1, name, args)
            geometry.dpr = try A.positiveNumber(name, args[0])
        case "enlarge", "el": geometry.enlarge = try A.bool(name, args)
        case "extend", "ex":
            (geometry.extend, geometry.extendGravity) = try extendOption(name, args, geometry.extendGravity)
        case "extend_aspect_ratio", "extend_ar", "exar":
            (geometry.extendAspectRatio, geometry.extendAspectRatioGravity) =
                try extendOption(name, args, geometry.extendAspectRatioGravity)
        case "gravity", "g":
            geometry.gravity = try A.gravity(name, args, allowed: Self.cropGravities, previous: geometry.gravity)
        case "crop", "c":
            geometry.cropWidth = try A.nonNegativeNumber(name, args[0])
            if args.count > 1 { geometry.cropHeight = try A.nonNegativeNumber(name, args[1]) }
            if args.count > 2 {
                geometry.cropGravity = try A.gravity(name, Array(args.dropFirst(2)), allowed: Self.cropGravities,
                                                     previous: geometry.cropGravity)
            }
        case "padding", "pd": try applyPadding(name, args)
        case "auto_rotate", "ar", "strip_metadata", "sm", "keep_copyright", "kcr", "strip_color_profile", "scp",
             "preserve_hdr", "ph", "enforce_thumbnail", "eth":
            _ = try A.bool(name, args)
        case "rotate", "rot":
            try A.atMost(1, name, args)
            guard let angle = Int(args[0]) else { throw A.invalid("invalid \(name): \(args[0]) (expected integer number)") }
            guard angle % 90 == 0 else { throw A.invalid("rotation angle must be a multiple of 90") }
            geometry.rotate = angle
        case "flip", "fl":
            try A.atMost(2, name, args)
            if !args[0].isEmpty { geometry.flipHorizontal = try A.bool(name, [args[0]]) }
            if args.count > 1, !args[1].isEmpty { geometry.flipVertical = try A.bool(name, [args[1]]) }
        case "background", "bg":
            geometry.background = args.count == 1 && args[0].isEmpty ? nil : try A.color(name, args)
        case "blur", "bl":
            try A.atMost(1, name, args)
            blur = try A.nonNegativeNumber(name, args[0])
        case "sharpen", "sh":
            try A.atMost(1, name, args)
            sharpen = try A.nonNegativeNumber(name, args[0])
        case "quality", "q":
            try A.atMost(1, name, args)
            quality = try A.quality(name, args[0])
        case "format_quality", "fq": try applyFormatQuality(name, args)
        case "max_bytes", "mb": maxBytes = try A.nonNegativeInt(name, args)
        case "format", "f", "ext":
            try A.atMost(1, name, args)
            format = try Self.format(args[0])
        case "skip_processing", "skp":
            for arg in args where ImgproxyFormatName.lookup(arg) == nil {
                throw A.invalid("invalid image format in \(name): \(arg)")
            }
        case "cachebuster", "cb": try A.atMost(1, name, args)
        case "expires", "exp": try applyExpires(name, args, now: now)
        case "filename", "fn": try applyFileName(name, args)
        case "return_attachment", "att": attachment = try A.bool(name, args)
        case "preset", "pr":
            try presets.apply(names: args, to: &self, now: now, usedPresets: usedPresets)
        case "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
             "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd":
            throw ImageServerError(.forbidden, "Security processing options are not allowed (\(name))")
        case "watermark", "wm": watermark = try ImgproxyWatermarkOption.parse(name, args)
        case "trim", "t", "pixelate", "pix", "raw":
            throw A.invalid("kf serve does not support the imgproxy option \(name)")
        default:
            throw A.invalid("unknown processing option \(name)")
        }
    }

    /// Gravity types `g` and `c` accept.
    static let cropGravities = Set(ImgproxyGravity.Kind.allCases)
    /// Gravity types `ex` and `exar` accept.
    static let extendGravities = Set(ImgproxyGravity.Kind.allCases).subtracting([.smart])

    /// An output format name; one kf serve cannot write is refused with 422.
    static func format(_ name: String) throws -> ImgproxyFormatName {
        switch ImgproxyFormatName.lookup(name) {
        case .writable(let format)?: return .writable(format)
        case .unwritable(let name)?: throw ImageServerError(.unprocessableContent, "kf serve cannot write \(name) images")
        case nil: throw ImgproxyArguments.invalid("invalid format: \(name) (expected supported image format)")
        }
    }

    private mutating func applyResizingType(_ name: String, _ args: [String]) throws {
        try ImgproxyArguments.atMost(1, name, args)
        guard let type = ImgproxyGeometry.ResizingType(rawValue: args[0]) else {
            throw ImgproxyArguments.invalid("invalid resizing type: \(args[0]) (expected fit, fill, fill-down, force, auto)")
        }
        geometry.resizingType = type
    }

    /// `size`'s `w:h:enlarge:extend:gravity…`, empty arguments keeping the current values.
    private mutating func applySize(_ name: String, _ args: [String]) throws {
        try ImgproxyArguments.atMost(7, name, args)
        if args.count > 0, !args[0].isEmpty { geometry.width = try ImgproxyArguments.nonNegativeInt("width", args[0]) }
        if args.count > 1, !args[1].isEmpty { geometry.height = try ImgproxyArguments.nonNegativeInt("height", args[1]) }
        if args.count > 2, !args[2].isEmpty { geometry.enlarge = try ImgproxyArguments.bool("enlarge", [args[2]]) }
        if args.count > 3, !args[3].isEmpty {
            (geometry.extend, geometry.extendGravity) =
                try extendOption("extend", Array(args.dropFirst(3)), geometry.extendGravity)
        }
    }

    /// `extend:gravity…`.
    private func extendOption(_ name: String, _ args: [String], _ current: ImgproxyGravity) throws
        -> (Bool, ImgproxyGravity) {
        try ImgproxyArguments.atMost(4, name, args)
        let enabled = try ImgproxyArguments.bool(name, [args[0]])
        guard args.count > 1 else { return (enabled, current) }
        return (enabled, try ImgproxyArguments.gravity(name + ".gravity", Array(args.dropFirst()),
                                                       allowed: Self.extendGravities, previous: current))
    }

    /// CSS-style `top:right:bottom:left`: right defaults to top, bottom to top, left to right.
    private mutating func applyPadding(_ name: String, _ args: [String]) throws {
        typealias A = ImgproxyArguments
        try A.atMost(4, name, args)
        if !args[0].isEmpty { geometry.paddingTop = try A.nonNegativeInt(name, args[0]) }
        geometry.paddingRight = args.count > 1 && !args[1].isEmpty ? try A.nonNegativeInt(name, args[1]) : geometry.paddingTop
        geometry.paddingBottom = args.count > 2 && !args[2].isEmpty ? try A.nonNegativeInt(name, args[2]) : geometry.paddingTop
        geometry.paddingLeft = args.count > 3 && !args[3].isEmpty ? try A.nonNegativeInt(name, args[3]) : geometry.paddingRight
    }

    /// `fq:format:quality:format:quality…`.
    private mutating func applyFormatQuality(_ name: String, _ args: [String]) throws {
        guard args.count.isMultiple(of: 2) else { throw ImgproxyArguments.invalid("missing \(name) for: \(args.last ?? "")") }
        for index in stride(from: 0, to: args.count, by: 2) {
            guard let format = ImgproxyFormatName.lookup(args[index]) else {
                throw ImgproxyArguments.invalid("invalid image format: \(args[index])")
            }
            let quality = try ImgproxyArguments.quality(name, args[index + 1])
            if case .writable(let format) = format { formatQuality[format] = quality }
        }
    }

    /// `exp:unix-time`: a past time (other than 0) is refused with 404, as imgproxy refuses it.
    private mutating func applyExpires(_ name: String, _ args: [String], now: Date) throws {
        try ImgproxyArguments.atMost(1, name, args)
        guard let timestamp = Int64(args[0]) else {
            throw ImgproxyArguments.invalid("invalid \(name): \(args[0]) (expected unix timestamp)")
        }
        if timestamp > 0 && Double(timestamp) < now.timeIntervalSince1970.rounded(.down) {
            throw ImgproxyArguments.invalid("expired URL")
        }
        expires = timestamp > 0 ? Date(timeIntervalSince1970: Double(timestamp)) : nil
    }

    /// `fn:name[:encoded]`: the name as written, or base64url-decoded when `encoded` is true.
    private mutating func applyFileName(_ name: String, _ args: [String]) throws {
        try ImgproxyArguments.atMost(2, name, args)
        if args.count > 1, ImgproxyArguments.goBool(args[1]) == true {
            var trimmed = Substring(args[0])
            while trimmed.hasSuffix("=") { trimmed = trimmed.dropLast() }
            guard let data = Base64URL.decode(trimmed), let text = String(data: data, encoding: .utf8) else {
                throw ImgproxyArguments.invalid("invalid \(name): \(args[0]) (expected URL-safe base64-encoded string)")
            }
            fileName = text
        } else {
            fileName = args[0]
        }
    }
}
