/// One `name(arguments)` of a thumbor `filters:` segment whose name is known here and whose
/// arguments match thumbor's pattern for that filter.
///
/// thumbor splits the segment on `"):"`, looks the name up (unknown names are skipped) and matches
/// the text against `name\(\s*(A)\s*(?:,\s*(B)\s*)?…\)` from the start; a filter whose arguments do
/// not match is skipped too. Trailing optional arguments may be left out.
struct ThumborFilterCall: Equatable {
    /// An argument pattern of thumbor's `BaseFilter`.
    enum Kind: Equatable {
        /// `\d+`
        case positiveNumber
        /// `\d*[1-9]\d*`
        case positiveNonZeroNumber
        /// `-?\d+`
        case number
        /// `-?(\d+\.?\d*|\d*\.?\d+)`
        case decimal
        /// `[Tt]rue|[Ff]alse|1|0`
        case boolean
        /// `'…'` (quotes dropped) or anything without a comma.
        case string
        /// `\w+` (colours).
        case word
        /// `\d+(\|\d+)?` (`round_corner`'s radii).
        case radii
        /// `-?\d+p?|center|repeat` (`watermark`'s positions).
        case position
        /// `-?\d+|none` (`watermark`'s size ratios).
        case ratio
    }

    /// The filters this grammar maps, with their argument patterns and how many are required.
    static let signatures: [String: (kinds: [Kind], required: Int)] = [
        "format": ([.string], 1), "quality": ([.positiveNumber], 1), "max_bytes": ([.positiveNumber], 1),
        "max_age": ([.positiveNumber], 1), "strip_icc": ([], 0), "strip_exif": ([], 0),
        "no_upscale": ([], 0), "upscale": ([], 0), "stretch": ([], 0), "grayscale": ([], 0),
        "fill": ([.word, .boolean], 1), "background_color": ([.word], 1),
        "blur": ([.positiveNonZeroNumber, .decimal], 1), "rotate": ([.number], 1),
        "round_corner": ([.radii, .positiveNumber, .positiveNumber, .positiveNumber, .boolean], 4),
        "brightness": ([.number], 1), "contrast": ([.number], 1),
        "sharpen": ([.decimal, .decimal, .boolean], 3), "focal": ([.string], 1), "proportion": ([.decimal], 1),
        "watermark": ([.string, .position, .position, .positiveNumber, .ratio, .ratio], 4),
    ]

    /// thumbor's other built-in filters, which the server reads but does not apply.
    static let unsupported: Set<String> = [
        "autojpg", "colorize", "convolution", "curve", "equalize", "extract_focal", "frame", "noise", "red_eye", "rgb",
        "saturation",
    ]

    /// The names of the filters in `filters` (percent-decoded) that thumbor knows and this grammar
    /// does not apply, in order, each once.
    static func unsupportedNames(in filters: String) -> [String] {
        var names: [String] = []
        for piece in filters.components(separatedBy: "):") {
            let name = String(piece.prefix { $0 != "(" })
            if unsupported.contains(name), !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The filter's name.
    let name: String
    /// Its arguments, trimmed, quotes of string arguments dropped.
    let arguments: [Substring]

    /// The known, well-formed filters of `filters` (percent-decoded), in order.
    static func calls(in filters: String) -> [ThumborFilterCall] {
        let pieces = filters.components(separatedBy: "):")
        return pieces.enumerated().compactMap { index, piece in
            parse(index == pieces.count - 1 ? piece : piece + ")")
        }
    }

    /// `piece` when its name is known and its arguments match.
    static func parse(_ piece: String) -> ThumborFilterCall? {
        guard let open = piece.firstIndex(of: "(") else { return nil }
        let name = String(piece[..<open])
        guard let signature = signatures[name] else { return nil }
        let afterOpen = piece[piece.index(after: open)...]
        guard let close = afterOpen.firstIndex(of: ")") else { return nil }
        let inner = afterOpen[..<close]
        if signature.kinds.isEmpty { return inner.isEmpty ? ThumborFilterCall(name: name, arguments: []) : nil }
        if signature.kinds == [.string], let quoted = match(trimmed(inner), .string), quoted.count + 2 == trimmed(inner).count {
            return ThumborFilterCall(name: name, arguments: [quoted])
        }
        let parts = inner.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
        guard parts.count >= signature.required, parts.count <= signature.kinds.count else { return nil }
        var arguments: [Substring] = []
        for (part, kind) in zip(parts, signature.kinds) {
            guard let argument = match(part, kind) else { return nil }
            arguments.append(argument)
        }
        return ThumborFilterCall(name: name, arguments: arguments)
    }

    /// `text` when it matches `kind` entirely (a quoted string without its quotes).
    static func match(_ text: Substring, _ kind: Kind) -> Substring? {
        let digits = { (part: Substring) in ThumborPath.isDigits(part) }
        switch kind {
        case .positiveNumber:
            return digits(text) ? text : nil
        case .positiveNonZeroNumber:
            return digits(text) && text.contains(where: { $0 != "0" }) ? text : nil
        case .number:
            return digits(text.first == "-" ? text.dropFirst() : text) ? text : nil
        case .decimal:
            let body = text.first == "-" ? text.dropFirst() : text
            let halves = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let valid = halves.allSatisfy { $0.isEmpty || digits($0) } && halves.contains { !$0.isEmpty }
            return valid ? text : nil
        case .boolean:
            return ["true", "True", "false", "False", "1", "0"].contains(text) ? text : nil
        case .string:
            if text.count >= 3, text.first == "'", text.last == "'" { return text.dropFirst().dropLast() }
            return text.isEmpty ? nil : text
        case .word:
            return !text.isEmpty && text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) ? text : nil
        case .radii:
            let radii = text.split(separator: "|", omittingEmptySubsequences: false)
            return radii.count <= 2 && radii.allSatisfy(digits) ? text : nil
        case .position:
            if text == "center" || text == "repeat" { return text }
            var body = text.first == "-" ? text.dropFirst() : text
            if body.last == "p" { body = body.dropLast() }
            return digits(body) ? text : nil
        case .ratio:
            return text == "none" || digits(text.first == "-" ? text.dropFirst() : text) ? text : nil
        }
    }

    /// `text` without surrounding whitespace.
    private static func trimmed(_ text: Substring) -> Substring {
        let start = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        let end = text.lastIndex { !$0.isWhitespace }.map { text.index(after: $0) } ?? start
        return text[start..<end]
    }

    /// Argument `index` as a whole number (saturated), or `nil` when absent.
    func integer(_ index: Int) -> Int? {
        guard index < arguments.count else { return nil }
        let text = arguments[index]
        let negative = text.first == "-"
        let value = ThumborPath.number(negative ? text.dropFirst() : text)
        return negative ? -value : value
    }

    /// Argument `index` as a decimal, or `nil` when absent.
    func decimal(_ index: Int) -> Double? {
        guard index < arguments.count else { return nil }
        return Double(arguments[index]) ?? Double("0" + arguments[index]) ?? Double(arguments[index] + "0")
    }

    /// Argument `index` as thumbor reads a boolean (`true`, `True`, `1`), `false` when absent.
    func boolean(_ index: Int) -> Bool {
        index < arguments.count && ["true", "True", "1"].contains(arguments[index])
    }
}
