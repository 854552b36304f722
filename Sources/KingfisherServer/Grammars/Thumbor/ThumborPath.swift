/// A thumbor path split the way libthumbor's `Url.regex()` splits it, options still raw.
///
/// The options are positional and each optional: `/(unsafe|SIG)/[debug/][meta/][trim/][AxB:CxD/]
/// [adaptive-][full-]fit-in/][-]Wx[-]H/[halign/][valign/][smart/][filters:…/]IMAGE`. A segment is
/// taken as an option only when it matches that option exactly and something is left for the image,
/// which is what the regular expression's backtracking amounts to.
struct ThumborPath {
    /// The first segment.
    enum Signature: Equatable {
        /// `unsafe`.
        case unsafe
        /// A signature as written in the path (possibly percent-encoded).
        case hash(Substring)
        /// Neither: the path has a single segment.
        case none
    }

    /// Numbers above this are read as this (thumbor has no limit; the server's pixel limits apply).
    static let numberCap = 1 << 30

    /// The first segment's meaning.
    var signature = Signature.none
    /// Everything after `/SIG/`, as sent: the bytes the signature covers.
    var signedPart: Substring = ""
    /// `debug/` was given.
    var debug = false
    /// `meta/` was given.
    var meta = false
    /// The options as a geometry (filters not yet applied).
    var geometry = ThumborGeometry()
    /// The text after `filters:`, still percent-encoded.
    var filters: Substring?
    /// The image URI, still percent-encoded.
    var image: Substring = ""

    /// Splits `rawPath`; throws 400 when no image is left, as thumbor answers (its loader finds no host).
    init(rawPath: Substring) throws {
        var cursor = Cursor(rest: rawPath.first == "/" ? rawPath.dropFirst() : rawPath)
        if cursor.take({ $0 == "unsafe" }) != nil {
            signature = .unsafe
        } else if let hash = cursor.take({ !$0.isEmpty }) {
            signature = .hash(hash)
        }
        signedPart = cursor.rest
        debug = cursor.take { $0 == "debug" } != nil
        meta = cursor.take { $0 == "meta" } != nil
        geometry.trim = cursor.take(Self.isTrim).map(String.init)
        if let crop = cursor.take({ Self.edges($0) != nil }) { geometry.crop = Self.edges(crop) }
        if let fit = cursor.take({ ["fit-in", "full-fit-in", "adaptive-fit-in", "adaptive-full-fit-in"].contains($0) }) {
            geometry.fitIn = true
            geometry.full = fit.contains("full-")
            geometry.adaptive = fit.hasPrefix("adaptive-")
        }
        if let size = cursor.take({ Self.dimensions($0) != nil }), let parsed = Self.dimensions(size) {
            (geometry.flipHorizontally, geometry.width, geometry.flipVertically, geometry.height) = parsed
        }
        if let align = cursor.take({ ["left", "right", "center"].contains($0) }) {
            geometry.horizontalAlignment = ThumborGeometry.HorizontalAlignment(rawValue: String(align)) ?? .center
        }
        if let align = cursor.take({ ["top", "bottom", "middle"].contains($0) }) {
            geometry.verticalAlignment = ThumborGeometry.VerticalAlignment(rawValue: String(align)) ?? .middle
        }
        geometry.smart = cursor.take { $0 == "smart" } != nil
        filters = cursor.takeFilters()
        image = cursor.rest
        guard !image.isEmpty else {
            throw ImageServerError(.badRequest, "no original image was specified in the given URL")
        }
    }

    /// `trim`, `trim:top-left`, `trim:bottom-right`, each optionally followed by `:TOLERANCE`.
    static func isTrim(_ segment: Substring) -> Bool {
        guard segment.hasPrefix("trim") else { return false }
        var rest = segment.dropFirst(4)
        for corner in [":top-left", ":bottom-right"] where rest.hasPrefix(corner) {
            rest = rest.dropFirst(corner.count)
        }
        if rest.first == ":" { rest = rest.dropFirst(); return isDigits(rest) }
        return rest.isEmpty
    }

    /// `AxB:CxD` as edges.
    static func edges(_ segment: Substring) -> ThumborGeometry.Edges? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2 else { return nil }
        let numbers = corners.flatMap { $0.split(separator: "x", omittingEmptySubsequences: false) }
        guard corners.allSatisfy({ $0.split(separator: "x", omittingEmptySubsequences: false).count == 2 }),
              numbers.allSatisfy(isDigits) else { return nil }
        let values = numbers.map(number)
        return ThumborGeometry.Edges(left: values[0], top: values[1], right: values[2], bottom: values[3])
    }

    /// `[-][W|orig]x[-][H|orig]`: flips and sizes (absent = 0).
    static func dimensions(_ segment: Substring)
        -> (Bool, ThumborGeometry.Size, Bool, ThumborGeometry.Size)? {
        guard let x = segment.firstIndex(of: "x") else { return nil }
        guard let (flipH, width) = side(segment[..<x]), let (flipV, height) = side(segment[segment.index(after: x)...])
        else { return nil }
        return (flipH, width, flipV, height)
    }

    /// One side of `WxH`: an optional `-`, then digits, `orig` or nothing.
    private static func side(_ text: Substring) -> (Bool, ThumborGeometry.Size)? {
        let flip = text.first == "-"
        let body = flip ? text.dropFirst() : text
        if body.isEmpty { return (flip, .pixels(0)) }
        if body == "orig" { return (flip, .original) }
        return isDigits(body) ? (flip, .pixels(number(body))) : nil
    }

    /// Whether `text` is one or more ASCII digits.
    static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The value of ASCII digits, saturated at ``numberCap``.
    static func number(_ digits: Substring) -> Int {
        var value = 0
        for byte in digits.utf8 {
            value = min(numberCap, value * 10 + Int(byte &- UInt8(ascii: "0")))
        }
        return value
    }

    /// The unparsed rest of a path, consumed one option at a time.
    struct Cursor {
        /// What is not consumed yet.
        var rest: Substring

        /// The next segment when `accepts` it and something follows it; the cursor moves past it.
        mutating func take(_ accepts: (Substring) -> Bool) -> Substring? {
            guard let slash = rest.firstIndex(of: "/") else { return nil }
            let segment = rest[..<slash], after = rest[rest.index(after: slash)...]
            guard !after.isEmpty, accepts(segment) else { return nil }
            rest = after
            return segment
        }

        /// `filters:…)/`: the shortest run ending in `)` before a `/` that leaves an image.
        mutating func takeFilters() -> Substring? {
            guard rest.hasPrefix("filters:") else { return nil }
            let start = rest.index(rest.startIndex, offsetBy: 8)
            guard start < rest.endIndex else { return nil }
            var search = rest.index(after: start)
            while let close = rest[search...].firstIndex(of: ")") {
                let slash = rest.index(after: close)
                if slash < rest.endIndex, rest[slash] == "/", rest.index(after: slash) < rest.endIndex {
                    let filters = rest[start...close]
                    rest = rest[rest.index(after: slash)...]
                    return filters
                }
                search = slash
                if search >= rest.endIndex { break }
            }
            return nil
        }
    }
}
