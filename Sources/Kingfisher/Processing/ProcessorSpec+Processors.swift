import Foundation

extension ProcessorSpec {
    /// The spellings ``processor()`` understands, one per processor, as `kf process --help` shows them.
    public static let grammar = """
    Processors:
      downsample(WxH)                decode small and fit WxH; never upscales
      resize(WxH[,fit|fill])         stretch, or keep the aspect ratio
      round(R[,WxH])                 round corners of radius R; stretch to WxH
      crop(WxH[,AX,AY])              crop around an anchor (0...1, default 0.5)
      blur(R)                        Gaussian-quality blur of radius R
      tint(#RRGGBBAA)                colour laid over the image
      overlay(#RRGGBBAA,F)           colour overlay; F is the image's share
      colorControls(B,C,S,EV)        brightness, contrast, saturation, exposure
      blackWhite                     grey with Kingfisher's exposure lift
      border(#RRGGBBAA,W[,R])        border W wide, corner radius R
      blend(MODE,ALPHA[,#RRGGBBAA])  blend over a colour; MODE is one of:
        \(BlendMode.allCases.map(\.specName).joined(separator: " "))
      fit(WxH[,fit|fill|force][,GRAVITY][,up])
                                     resize to the box WxH (a 0 side is free); fill crops at
                                     GRAVITY; up allows enlarging
      cropRect(X,Y,W,H)              keep the rectangle at X,Y of W×H pixels
      cropTo(WxH[,GRAVITY])          crop to WxH placed at GRAVITY (default center)
      extend(WxH[,GRAVITY][,#RRGGBBAA])
                                     canvas of WxH (never smaller than the image), the image at
                                     GRAVITY (default center), transparent unless a colour is given
      pad(T,R,B,L[,#RRGGBBAA])       add margins above, right, below, left
      flip(h|v|hv)                   mirror left to right, top to bottom, or both
      rotate(90|180|270)             turn clockwise
      levels(C,B)                    each colour channel c becomes C·(c−128)+128+B
      grayscale                      Rec. 601 luma, no exposure lift
      sharpen(SIGMA)                 unsharp mask of Gaussian deviation SIGMA
      smartCrop(WxH)                 crop to WxH where the subject most likely is
      watermark(FILE,OPACITY[,POSITION][,SCALE])
                                     the image in FILE drawn at OPACITY (0...1); POSITION is a
                                     GRAVITY compass name with offsets (default southEast) or
                                     repeat; SCALE is the share of the width and height it may take
    GRAVITY is center, north, south, east, west, northEast, northWest, southEast or southWest, each
    optionally with offsets NAME:X:Y (pixels when 1 or more, else fractions of the image); fp:X:Y,
    a focal point with X and Y in 0...1; or smart (as smartCrop places it; the centre for extend).
    """

    /// The processor chain the spec describes; throws ``ProcessorSpecError`` naming the step whose
    /// name or arguments are wrong.
    public func processor() throws -> any ImageProcessor {
        try processor(readsFiles: true)
    }

    /// The processor chain the spec describes; with `readsFiles` false a step that reads a file
    /// (`watermark`) is refused, as a spec that comes from a request must be.
    ///
    /// - Throws: ``ProcessorSpecError`` naming the step whose name or arguments are wrong.
    public func processor(readsFiles: Bool) throws -> any ImageProcessor {
        var chain: (any ImageProcessor)?
        for step in steps {
            let next = try Self.processor(for: step, readsFiles: readsFiles)
            chain = chain.map { $0 |> next } ?? next
        }
        guard let chain else { throw ProcessorSpecError(step: "", reason: "the processor spec is empty") }
        return chain
    }

    /// The processor names, spelled as ``grammar`` shows them; a spec may write them in any case.
    static let names = [
        "downsample", "resize", "round", "crop", "blur", "tint", "overlay", "colorControls", "blackWhite", "border", "blend",
        "fit", "cropRect", "cropTo", "extend", "pad", "flip", "rotate", "levels", "grayscale", "sharpen", "smartCrop",
        "watermark",
    ]

    private static func processor(for step: Step, readsFiles: Bool) throws -> any ImageProcessor {
        guard let name = names.first(where: { $0.lowercased() == step.name.lowercased() }) else {
            let guess = nearest(step.name, in: names).map { "; did you mean '\($0)'?" }
                ?? ": the processors are \(names.joined(separator: ", "))"
            throw ProcessorSpecError(
                step: step.text, reason: "unknown processor '\(step.name)' at column \(step.column)\(guess)", column: step.column)
        }
        switch name {
        case "downsample":
            try step.expectArguments(1, 1, usage: "downsample(WxH)")
            return DownsamplingImageProcessor(size: try step.size(0, "the size"))
        case "resize":
            try step.expectArguments(1, 2, usage: "resize(WxH[,fit|fill])")
            let size = try step.size(0, "the size")
            switch step.arguments.count > 1 ? step.arguments[1].lowercased() : "none" {
            case "none": return ResizingImageProcessor(referenceSize: size, mode: .none)
            case "fit": return ResizingImageProcessor(referenceSize: size, mode: .aspectFit)
            case "fill": return ResizingImageProcessor(referenceSize: size, mode: .aspectFill)
            default: throw ProcessorSpecError(step: step.text, reason: "the mode must be fit or fill, got '\(step.arguments[1])'")
            }
        case "round":
            try step.expectArguments(1, 2, usage: "round(R[,WxH])")
            let radius = try nonNegative(step.number(0, "the radius"), "the radius", step)
            let target = step.arguments.count > 1 ? try step.size(1, "the target size") : nil
            return RoundCornerImageProcessor(cornerRadius: radius, targetSize: target)
        case "crop":
            try step.expectArguments(1, 3, usage: "crop(WxH[,AX,AY])")
            guard step.arguments.count != 2 else {
                throw ProcessorSpecError(step: step.text, reason: "give both anchor coordinates: crop(WxH,AX,AY)")
            }
            let size = try step.size(0, "the size")
            var anchor = CGPoint(x: 0.5, y: 0.5)
            if step.arguments.count == 3 {
                anchor = CGPoint(x: try unit(step.number(1, "the anchor's x"), "the anchor's x", step),
                                 y: try unit(step.number(2, "the anchor's y"), "the anchor's y", step))
            }
            return CroppingImageProcessor(size: size, anchor: anchor)
        case "blur":
            try step.expectArguments(1, 1, usage: "blur(R)")
            return BlurImageProcessor(blurRadius: try nonNegative(step.number(0, "the radius"), "the radius", step))
        case "tint":
            try step.expectArguments(1, 1, usage: "tint(#RRGGBBAA)")
            return TintImageProcessor(tint: try step.color(0, "the tint"))
        case "overlay":
            try step.expectArguments(2, 2, usage: "overlay(#RRGGBBAA,F)")
            return OverlayImageProcessor(overlay: try step.color(0, "the overlay colour"),
                                         fraction: try unit(step.number(1, "the fraction"), "the fraction", step))
        case "colorControls":
            try step.expectArguments(4, 4, usage: "colorControls(B,C,S,EV)")
            return ColorControlsProcessor(brightness: try step.number(0, "the brightness"), contrast: try step.number(1, "the contrast"),
                                          saturation: try step.number(2, "the saturation"), inputEV: try step.number(3, "the exposure"))
        case "blackWhite":
            try step.expectArguments(0, 0, usage: "blackWhite")
            return BlackWhiteProcessor()
        case "border":
            try step.expectArguments(2, 3, usage: "border(#RRGGBBAA,W[,R])")
            let color = try step.color(0, "the colour")
            let width = try nonNegative(step.number(1, "the width"), "the width", step)
            let radius = step.arguments.count > 2 ? try nonNegative(step.number(2, "the radius"), "the radius", step) : 0
            return BorderImageProcessor(border: Border(color: color, lineWidth: width, radius: .point(radius)))
        case "blend":
            try step.expectArguments(2, 3, usage: "blend(MODE,ALPHA[,#RRGGBBAA])")
            let written = try step.argument(0, "the mode")
            guard let mode = BlendMode.allCases.first(where: { $0.specName.lowercased() == written.lowercased() }) else {
                let modes = BlendMode.allCases.map(\.specName)
                let guess = nearest(written, in: modes).map { "; did you mean '\($0)'?" }
                    ?? ": the modes are \(modes.joined(separator: ", "))"
                throw ProcessorSpecError(step: step.text, reason: "unknown blend mode '\(written)'\(guess)")
            }
            let alpha = try unit(step.number(1, "the alpha"), "the alpha", step)
            let background = step.arguments.count > 2 ? try step.color(2, "the background") : nil
            return BlendImageProcessor(blendMode: mode, alpha: alpha, backgroundColor: background)
        case "watermark":
            return try watermarkProcessor(step, readsFiles: readsFiles)
        default:
            return try geometryProcessor(name, step)
        }
    }

    /// The processors of the image-server geometry and colour-level names.
    private static func geometryProcessor(_ name: String, _ step: Step) throws -> any ImageProcessor {
        switch name {
        case "fit":
            return try fitProcessor(step)
        case "cropRect":
            try step.expectArguments(4, 4, usage: "cropRect(X,Y,W,H)")
            let x = try nonNegative(step.number(0, "x"), "x", step)
            let y = try nonNegative(step.number(1, "y"), "y", step)
            let width = try positive(step.number(2, "the width"), "the width", step)
            let height = try positive(step.number(3, "the height"), "the height", step)
            return RectCroppingImageProcessor(rect: CGRect(x: x, y: y, width: width, height: height))
        case "cropTo":
            try step.expectArguments(1, 2, usage: "cropTo(WxH[,GRAVITY])")
            let gravity = step.arguments.count > 1 ? try step.gravity(1) : .center
            return GravityCroppingImageProcessor(size: try step.size(0, "the size"), gravity: gravity)
        case "extend":
            try step.expectArguments(1, 3, usage: "extend(WxH[,GRAVITY][,#RRGGBBAA])")
            var gravity = Gravity.center
            var background = KFCrossPlatformColor.clear
            for index in step.arguments.indices.dropFirst() {
                if step.arguments[index].hasPrefix("#") {
                    guard index == step.arguments.count - 1 else {
                        throw ProcessorSpecError(step: step.text, reason: "the background comes after the gravity: extend(WxH[,GRAVITY][,#RRGGBBAA])")
                    }
                    background = try step.color(index, "the background")
                } else if index == 1 {
                    gravity = try step.gravity(index)
                } else {
                    background = try step.color(index, "the background")
                }
            }
            return ExtendingImageProcessor(size: try step.size(0, "the size"), gravity: gravity, background: background)
        case "pad":
            try step.expectArguments(4, 5, usage: "pad(T,R,B,L[,#RRGGBBAA])")
            let sides = try ["the top", "the right", "the bottom", "the left"].enumerated().map { index, what in
                try nonNegative(step.number(index, what), what, step)
            }
            let background = step.arguments.count > 4 ? try step.color(4, "the background") : .clear
            return PaddingImageProcessor(top: sides[0], right: sides[1], bottom: sides[2], left: sides[3], background: background)
        case "flip":
            try step.expectArguments(1, 1, usage: "flip(h|v|hv)")
            switch step.arguments[0].lowercased() {
            case "h": return FlippingImageProcessor(horizontal: true, vertical: false)
            case "v": return FlippingImageProcessor(horizontal: false, vertical: true)
            case "hv", "vh": return FlippingImageProcessor(horizontal: true, vertical: true)
            default: throw ProcessorSpecError(step: step.text, reason: "the direction must be h, v or hv, got '\(step.arguments[0])'")
            }
        case "rotate":
            try step.expectArguments(1, 1, usage: "rotate(90|180|270)")
            guard let degrees = Int(step.arguments[0]), [90, 180, 270].contains(degrees) else {
                throw ProcessorSpecError(step: step.text, reason: "the angle must be 90, 180 or 270, got '\(step.arguments[0])'")
            }
            return RotatingImageProcessor(quarterTurns: degrees / 90)
        case "levels":
            try step.expectArguments(2, 2, usage: "levels(C,B)")
            return ColorLevelsImageProcessor(contrast: Float(try step.number(0, "the contrast")),
                                             brightness: Float(try step.number(1, "the brightness")))
        case "grayscale":
            try step.expectArguments(0, 0, usage: "grayscale")
            return GrayscaleImageProcessor()
        case "sharpen":
            try step.expectArguments(1, 1, usage: "sharpen(SIGMA)")
            return SharpeningImageProcessor(sigma: try nonNegative(step.number(0, "the sigma"), "the sigma", step))
        case "smartCrop":
            try step.expectArguments(1, 1, usage: "smartCrop(WxH)")
            return SmartCroppingImageProcessor(size: try step.size(0, "the size"))
        default:
            throw ProcessorSpecError(step: step.text, reason: "unknown processor '\(step.name)'", column: step.column)
        }
    }

    /// `fit(WxH[,fit|fill|force][,GRAVITY][,up])`: the box may have one side 0, not both.
    private static func fitProcessor(_ step: Step) throws -> any ImageProcessor {
        let usage = "fit(WxH[,fit|fill|force][,GRAVITY][,up])"
        try step.expectArguments(1, 4, usage: usage)
        let written = step.arguments[0]
        let parts = written.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
              width.isFinite, height.isFinite, width >= 0, height >= 0, width > 0 || height > 0
        else {
            throw ProcessorSpecError(
                step: step.text, reason: "the box must be WxH with numbers of 0 or more, one of them positive, got '\(written)'")
        }
        var mode: FittingMode?
        var gravity: Gravity?
        var enlarges = false
        for (index, argument) in step.arguments.enumerated().dropFirst() {
            let word = argument.lowercased()
            let unexpected = ProcessorSpecError(step: step.text, reason: "unexpected '\(argument)': \(usage)")
            if let found = FittingMode(rawValue: word) {
                guard mode == nil, gravity == nil, !enlarges else { throw unexpected }
                mode = found
            } else if word == "up" {
                guard !enlarges else { throw unexpected }
                enlarges = true
            } else {
                guard gravity == nil, !enlarges else { throw unexpected }
                gravity = try step.gravity(index)
            }
        }
        return FittingImageProcessor(size: CGSize(width: width, height: height), mode: mode ?? .fit,
                                     gravity: gravity ?? .center, allowsEnlarging: enlarges)
    }

    /// The candidate closest to `word`, ignoring case, when it is close enough to be a slip: one
    /// letter inserted, removed, replaced or swapped with a neighbour for names of up to four
    /// letters, two up to seven, three for longer names.
    static func nearest(_ word: String, in candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            let allowed = candidate.count <= 4 ? 1 : candidate.count <= 7 ? 2 : 3
            guard distance <= allowed else { continue }
            if distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// Insertions, deletions, substitutions and swaps of adjacent characters that turn `a` into `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    private static func nonNegative(_ value: CGFloat, _ what: String, _ step: Step) throws -> CGFloat {
        guard value >= 0 else { throw ProcessorSpecError(step: step.text, reason: "\(what) must not be negative") }
        return value
    }

    private static func positive(_ value: CGFloat, _ what: String, _ step: Step) throws -> CGFloat {
        guard value > 0 else { throw ProcessorSpecError(step: step.text, reason: "\(what) must be positive") }
        return value
    }

    private static func unit(_ value: CGFloat, _ what: String, _ step: Step) throws -> CGFloat {
        guard (0...1).contains(value) else { throw ProcessorSpecError(step: step.text, reason: "\(what) must be between 0 and 1") }
        return value
    }
}

extension BlendMode {
    /// The mode's name in a processor spec: the case name.
    var specName: String { String(describing: self) }
}
