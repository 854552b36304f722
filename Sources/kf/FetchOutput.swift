import Foundation
import Kingfisher

/// What one retrieval of `kf fetch` gave: the bytes of the image, their format and size.
struct RetrievedImage {
    /// Bytes that encode the image as retrieved: without a processor, the downloaded bytes on a
    /// network run and the cache entry on a hit; with one, the cache entry of the processed image.
    /// `nil` when there are none (a processed image whose cache entry could not be read).
    var bytes: Data?
    /// The image's own format: that of ``bytes``, else that of the original.
    var format: ImageFormat
    /// Pixel width, upright.
    var width: Int
    /// Pixel height, upright.
    var height: Int
    /// The decoded (and processed) image, when the retrieval decoded one; `nil` when only the
    /// header of ``bytes`` was read.
    var image: KFCrossPlatformImage?

    /// The image for encoding in another format: ``image``, or ``bytes`` decoded now.
    func decoded() throws -> KFCrossPlatformImage {
        if let image { return image }
        guard let bytes else { throw Reason(description: "no image bytes to convert") }
        return try KFCrossPlatformImage(data: bytes)
    }
}

/// Where `kf fetch -o` writes: nothing, one file, or a folder.
///
/// The format written: for `-o FILE` the one its extension names (`.jpg`/`.jpeg` JPEG, `.png`
/// PNG, `.webp` WebP, `.gif` GIF, `.avif` AVIF, `.jxl` JPEG XL, `.heic` HEIC), otherwise, and for
/// `-o DIR`, the image's own format. Bytes already in that format are written unchanged; others
/// are encoded from the image, except as HEIC, which Kingfisher cannot encode.
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

    /// The format an image of `format` is written in here: the file extension's, else its own
    /// (PNG when that is unknown).
    func format(for format: ImageFormat) -> ImageFormat {
        if case .file(let url) = self, let named = ImageFormat(fileExtension: url.pathExtension) { return named }
        return format == .unknown ? .PNG : format
    }

    /// Writes `fetched` for `source`; returns the path and the format written, or `nil` without `-o`.
    func write(_ fetched: RetrievedImage, source: Source, names: inout OutputNames) throws -> (path: String, format: ImageFormat)? {
        let target = format(for: fetched.format)
        let url: URL
        switch self {
        case .none: return nil
        case .file(let file): url = file
        case .directory(let folder): url = names.unique(in: folder, for: source, format: target)
        }
        let bytes: Data
        if let original = fetched.bytes, ImageFormat(data: original) == target {
            bytes = original
        } else if target == .HEIC {
            throw Reason(description: HEICOutput.refusal(copying: fetched.format))
        } else if let encoded = try fetched.decoded().kf.data(format: target) {
            bytes = encoded
        } else {
            throw Reason(description: "the image could not be encoded as \(target)")
        }
        do {
            try bytes.write(to: url, options: .atomic)
        } catch {
            throw Reason(description: "cannot write \(url.path): \(describe(error))")
        }
        return (url.path, target)
    }
}

/// Output file names for `-o DIR`: the URL's last path component, made unique within the run
/// and the folder, with an extension that names the format written.
struct OutputNames {
    private var used: Set<String> = []

    /// A name in `folder` for `source`, written as `format`, not used yet by this run or by a file
    /// there.
    ///
    /// The URL's name is kept when its extension already names `format` (`photo.jpeg`); an
    /// extension naming another image format is replaced (`photo.png` → `photo.jpg`); otherwise
    /// the format's extension is added (`avatar` → `avatar.jpg`, `avatar.php` → `avatar.php.jpg`).
    mutating func unique(in folder: URL, for source: Source, format: ImageFormat) -> URL {
        var name = source.url?.lastPathComponent ?? ""
        if name.isEmpty || name == "/" { name = "image" }
        var base = name
        var ext = (name as NSString).pathExtension
        switch ImageFormat(fileExtension: ext) {
        case format?:
            base = (name as NSString).deletingPathExtension
        case _?:
            base = (name as NSString).deletingPathExtension
            ext = format.fileExtension ?? "img"
        case nil:
            ext = format.fileExtension ?? "img"
        }
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
