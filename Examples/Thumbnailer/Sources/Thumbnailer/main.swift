import Foundation
import Kingfisher

// Usage: Thumbnailer URL-or-FILE [OUTPUT.png]
// Fetches the image through the shared manager (memory, then disk, then the network or the
// file), makes a 128×128 rounded thumbnail, and writes it as PNG.
let arguments = CommandLine.arguments.dropFirst()
guard let input = arguments.first else {
    FileHandle.standardError.write(Data("usage: Thumbnailer URL-or-FILE [OUTPUT.png]\n".utf8))
    exit(2)
}
let output = URL(fileURLWithPath: arguments.dropFirst().first ?? "thumbnail.png")
let resource: URL = input.contains("://") ? URL(string: input) ?? URL(fileURLWithPath: input)
                                          : URL(fileURLWithPath: input)

let processor = DownsamplingImageProcessor(size: CGSize(width: 128, height: 128))
    |> RoundCornerImageProcessor(cornerRadius: 16)

do {
    // Rounded corners are transparent: cache the thumbnail as PNG, not in the original's format
    // (a JPEG original would make the corners opaque once the thumbnail comes from disk).
    // `.waitForCache`: return once the thumbnail is on disk, so the next run finds it there.
    let result = try await KingfisherManager.shared.retrieveImage(
        with: resource,
        options: [.processor(processor), .cacheSerializer(FormatIndicatedCacheSerializer.png), .waitForCache])
    guard let png = result.image.kf.pngRepresentation() else {
        FileHandle.standardError.write(Data("cannot encode the thumbnail\n".utf8))
        exit(1)
    }
    try png.write(to: output)
    let size = result.image.size
    print("\(input): \(Int(size.width))×\(Int(size.height)) from \(result.cacheType) → \(output.path)")

    // The cache keeps the thumbnail under the URL and the processor's identifier.
    let cache = KingfisherManager.shared.cache
    let file = cache.cachePath(forKey: resource.cacheKey, processorIdentifier: processor.identifier)
    print("cached at \(file); the disk cache holds \(try await cache.diskStorageSize) bytes")
} catch let error as KingfisherError {
    FileHandle.standardError.write(Data("\(input): \(error.localizedDescription)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("\(output.path): \(error.localizedDescription)\n".utf8))
    exit(1)
}
