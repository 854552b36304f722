/// The repairs imgproxy makes to a path before checking its signature (`RedenormalizePath`).
enum ImgproxyPath {
    /// `path` (after the signature segment, without its leading `/`) with `%3A` turned back into
    /// `:` in the options part and `scheme:/x` back into `scheme://x` at the start of a plain
    /// source, the leading `/` removed.
    static func redenormalize(_ path: Substring) -> String {
        let options: Substring
        var plainURL: Substring
        if path.hasPrefix("plain/") {
            options = ""
            plainURL = path.dropFirst(6)
        } else if let range = path.range(of: "/plain/") {
            options = path[..<range.lowerBound]
            plainURL = path[range.upperBound...]
        } else {
            return String(dropSlash(Substring(path.replacingOccurrences(of: "%3A", with: ":"))))
        }
        let repairedOptions = options.replacingOccurrences(of: "%3A", with: ":")
        plainURL = Substring(repairedScheme(plainURL))
        return String(dropSlash(Substring(repairedOptions + "/plain/" + plainURL)))
    }

    /// One leading `/` removed.
    private static func dropSlash(_ text: Substring) -> Substring { text.hasPrefix("/") ? text.dropFirst() : text }

    /// imgproxy's `^(\S+)\:/([^/])` replaced by `$1://$2` (`$1:///$2` for `local`): the last
    /// `:/` followed by something other than `/` within the leading run of non-space characters.
    private static func repairedScheme(_ url: Substring) -> String {
        let bytes = Array(url.utf8)
        // RE2's \s: tab, newline, form feed, carriage return, space.
        let run = bytes.firstIndex(where: { [9, 10, 12, 13, 32].contains($0) }) ?? bytes.count
        var match: Int?
        for index in stride(from: 1, through: min(run, bytes.count - 3), by: 1)
        where bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
            && bytes[index + 2] != UInt8(ascii: "/") {
            match = index
        }
        guard let colon = match else { return String(url) }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self)
        let rest = String(decoding: bytes[(colon + 2)...], as: UTF8.self)
        return scheme + (scheme == "local" ? ":///" : "://") + rest
    }
}
