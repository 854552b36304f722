import Foundation
import Kingfisher

/// Where `kf fetch -o` writes: nothing, one file, or a folder.
enum FetchDestination {
    /// No `-o`: nothing is written.
    case none
    /// `-o FILE`, for a single input.
    case file(URL)
    /// `-o DIR`: one file per input, named by ``OutputNames``.
    case directory(URL)

    /// The destination `-o output` names for `uniqueCount` inputs; a folder is created when missing.
    init(output: String?, uniqueCount: Int) throws {
        guard let output else {
            self = .none
            return
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        if output.hasSuffix("/") || (exists && isDirectory.boolValue) {
            let url = URL(fileURLWithPath: output, isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw CLIError.input(output, Reason(description: "cannot create the folder: \(describe(error))"))
            }
            self = .directory(url)
            return
        }
        guard uniqueCount == 1 else {
            throw CLIError.usage("-o FILE takes one input; for several give a folder (an existing one, or a path ending in '/')")
        }
        self = .file(URL(fileURLWithPath: output))
    }

    /// Writes `image` for `source` and returns the path written, or `nil` without `-o`.
    ///
    /// Without a processor the original bytes are written; otherwise the image is encoded in
    /// the original's format.
    func write(
        _ image: KFCrossPlatformImage, original: Data?, format: ImageFormat, source: Source, unprocessed: Bool,
        names: inout OutputNames
    ) throws -> String? {
        let url: URL
        switch self {
        case .none: return nil
        case .file(let file): url = file
        case .directory(let folder): url = names.unique(in: folder, for: source, format: format)
        }
        let bytes: Data
        if unprocessed, let original {
            bytes = original
        } else if let encoded = image.kf.data(format: format) {
            bytes = encoded
        } else {
            throw Reason(description: "the image could not be encoded as \(format)")
        }
        do {
            try bytes.write(to: url, options: .atomic)
        } catch {
            throw Reason(description: "cannot write \(url.path): \(describe(error))")
        }
        return url.path
    }
}

/// Output file names for `-o DIR`: the URL's last path component, made unique within the run
/// and the folder.
struct OutputNames {
    private var used: Set<String> = []

    /// A name in `folder` for `source` not used yet by this run or by a file there.
    mutating func unique(in folder: URL, for source: Source, format: ImageFormat) -> URL {
        var name = source.url?.lastPathComponent ?? ""
        if name.isEmpty || name == "/" { name = "image" }
        let base = (name as NSString).deletingPathExtension
        var ext = (name as NSString).pathExtension
        if ext.isEmpty { ext = format.fileExtension ?? "img" }
        var candidate = "\(base).\(ext)"
        var counter = 1
        while used.contains(candidate) || FileManager.default.fileExists(atPath: folder.appendingPathComponent(candidate).path) {
            candidate = "\(base)-\(counter).\(ext)"
            counter += 1
        }
        used.insert(candidate)
        return folder.appendingPathComponent(candidate)
    }
}
