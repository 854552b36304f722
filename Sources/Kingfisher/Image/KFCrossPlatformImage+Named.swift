import Foundation

extension KFCrossPlatformImage {
    /// The image file `name` among a bundle's resources, decoded; `nil` when there is no such
    /// file or it does not decode.
    ///
    /// `name` may carry its extension (`"placeholder.png"`) or not (`"placeholder"`, then `.png`,
    /// `.jpg`, `.jpeg`, `.webp` and `.gif` are tried in that order), and a folder inside the
    /// bundle's resources (`"icons/star"`). Without a scale suffix, the plain file is taken first,
    /// then `@2x`, then `@3x`: Linux has no screen scale to choose by. The image's
    /// ``KFCrossPlatformImage/scale`` comes from the suffix of the file taken (`@2x` gives 2), so
    /// its ``KFCrossPlatformImage/size`` is in points. A name ending in `@1x`, `@2x` or `@3x` names that
    /// file alone.
    ///
    /// - Parameters:
    ///   - name: The file's name, as described above.
    ///   - bundle: Where to look; `nil` is `Bundle.main` (on Linux, the executable's folder). For
    ///     a SwiftPM target's resources, pass `Bundle.module`.
    ///
    /// Each call reads and decodes the file (nothing is cached); keep the image you load often.
    public init?(named name: String, in bundle: Bundle? = nil) {
        let bundle = bundle ?? .main
        for candidate in Self.resourceCandidates(forName: name) {
            guard let url = bundle.url(forResource: candidate.name, withExtension: candidate.pathExtension) else {
                continue
            }
            // The first file found is the one the name means: a corrupt file is a failure, not a
            // reason to show a different variant.
            guard let data = try? Data(contentsOf: url),
                  let image = try? KFCrossPlatformImage(data: data, options: ImageCreatingOptions(scale: candidate.scale))
            else { return nil }
            self = image
            return
        }
        return nil
    }

    /// The extensions tried, in order, for a name given without one.
    static let namedImageExtensions = ["png", "jpg", "jpeg", "webp", "gif", "avif", "heic", "jxl"]

    /// The resource files `name` may mean, most preferred first.
    static func resourceCandidates(forName name: String) -> [(name: String, pathExtension: String, scale: CGFloat)] {
        guard !name.isEmpty, !name.hasSuffix("/") else { return [] }
        var stem = name
        var extensions = namedImageExtensions
        if let dot = name.lastIndex(of: "."), name[dot...].contains("/") == false {
            let given = String(name[name.index(after: dot)...])
            if namedImageExtensions.contains(given.lowercased()) {
                stem = String(name[..<dot])
                extensions = [given]
            }
        }
        var variants: [(String, CGFloat)] = []
        if let scale = Self.scaleSuffix(of: stem) {
            variants = [(stem, scale)]
        } else {
            variants = [(stem, 1), (stem + "@2x", 2), (stem + "@3x", 3)]
        }
        return variants.flatMap { variant in
            extensions.map { (name: variant.0, pathExtension: $0, scale: variant.1) }
        }
    }

    /// The scale a name's `@2x` or `@3x` suffix (or `@1x`) states, if it has one.
    static func scaleSuffix(of stem: String) -> CGFloat? {
        for (suffix, scale) in [("@1x", CGFloat(1)), ("@2x", 2), ("@3x", 3)] where stem.hasSuffix(suffix) {
            return scale
        }
        return nil
    }
}
