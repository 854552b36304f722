import Foundation

/// imgproxy's named option sets (`IMGPROXY_PRESETS`), applied by `pr:name` and, for the preset
/// named `default`, before every URL's own options.
struct ImgproxyPresets: Sendable {
    /// Option segments by preset name.
    let definitions: [String: [String]]

    /// Presets from their definitions.
    init(_ definitions: [String: [String]]) { self.definitions = definitions }

    /// Applies the presets `names` in order; a preset already being applied is skipped (imgproxy
    /// logs a warning and goes on), an unknown one is a 404.
    func apply(names: [String], to options: inout ImgproxyOptions, now: Date, usedPresets: [String]) throws {
        for name in names {
            guard let segments = definitions[name] else {
                throw ImgproxyArguments.invalid("unknown preset: \(name)")
            }
            if usedPresets.contains(name) { continue }
            for segment in segments {
                let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                try options.apply(name: parts[0], args: Array(parts.dropFirst()), presets: self, now: now,
                                  usedPresets: usedPresets + [name])
            }
        }
    }

    /// The options every URL starts from: the `default` preset, if there is one.
    func defaults(now: Date) throws -> ImgproxyOptions {
        var options = ImgproxyOptions()
        if definitions["default"] != nil {
            try apply(names: ["default"], to: &options, now: now, usedPresets: [])
        }
        return options
    }

    /// Applies every preset to fresh options, as imgproxy does at start-up, so a bad preset is found
    /// before the first request.
    func validate() throws {
        for name in definitions.keys.sorted() {
            var options = ImgproxyOptions()
            do {
                try apply(names: [name], to: &options, now: Date(timeIntervalSince1970: 0), usedPresets: [])
            } catch let error as ImageServerError {
                throw ImgproxyConfigurationError("error in preset '\(name)': \(error.reason)")
            }
        }
    }
}
