import Foundation

/// The media types an `Accept` header names, with their quality values (RFC 9110, section 12.5.1).
///
/// Only types named exactly count: `image/*` and `*/*` say nothing about AVIF or WebP (browsers
/// that cannot show them send those ranges too), so a client must name `image/avif` or
/// `image/webp` to be answered in it. A type named with `q=0` is refused.
struct AcceptHeader: Sendable, Hashable {
    /// The quality of each exact type named, lowercased, as first named.
    private var qualities: [String: Double] = [:]

    /// Parses `header` (several `Accept` lines joined by commas are one header); `nil` accepts nothing.
    ///
    /// A range with an unparsable quality value is skipped, as if it were not there.
    init(_ header: String?) {
        guard let header else { return }
        for element in header.split(separator: ",") {
            var parameters = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let range = parameters.first?.lowercased(), !range.isEmpty else { continue }
            parameters.removeFirst()
            guard let quality = Self.quality(in: parameters) else { continue }
            if qualities[range] == nil { qualities[range] = quality }
        }
    }

    /// The quality the header gives `mediaType` by naming it exactly; `nil` when it does not name it.
    func quality(ofExactly mediaType: String) -> Double? {
        qualities[mediaType.lowercased()]
    }

    /// Whether the header names `mediaType` exactly with a quality above 0.
    func namesAcceptably(_ mediaType: String) -> Bool {
        (quality(ofExactly: mediaType) ?? 0) > 0
    }

    /// The `q` parameter among `parameters` (1 without one); `nil` when it is not a valid qvalue
    /// (`0` to `1` with at most three decimals).
    private static func quality(in parameters: [String]) -> Double? {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
            return qvalue(pair[1])
        }
        return 1
    }

    /// `0`, `0.5`, `1.000` as numbers; anything else (`2`, `-1`, `0.1234`, `abc`) `nil`.
    private static func qvalue(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        if parts.count == 2 {
            let fraction = parts[1]
            guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            if whole == "1", fraction.contains(where: { $0 != "0" }) { return nil }
        }
        return Double(text)
    }
}
