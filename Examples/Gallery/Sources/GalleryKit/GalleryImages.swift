import Foundation
import Kingfisher
import KingfisherTestServer

/// Where the gallery's images come from: URLs given, a folder's images, or the repository's samples
/// plus generated images, the last two served from a loopback server the gallery starts.
public enum GalleryImages {
    /// The file extensions served from a folder.
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "avif", "heic", "heif", "jxl"]

    /// The colour of generated image `index`: hues spread by the golden ratio, so neighbours differ.
    public static func colour(for index: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let hue = (Double(index) * 0.618_033_988_75).truncatingRemainder(dividingBy: 1)
        let sector = hue * 6
        let x = 1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1)
        let (r, g, b): (Double, Double, Double)
        switch Int(sector) {
        case 0: (r, g, b) = (1, x, 0)
        case 1: (r, g, b) = (x, 1, 0)
        case 2: (r, g, b) = (0, 1, x)
        case 3: (r, g, b) = (0, x, 1)
        case 4: (r, g, b) = (x, 0, 1)
        default: (r, g, b) = (1, 0, x)
        }
        func channel(_ v: Double) -> UInt8 { UInt8(40 + v * 190) }
        return (channel(r), channel(g), channel(b))
    }

    /// Generated image `index`: its colour, darkening towards the bottom right when `gradient`
    /// (a flat colour otherwise, for pixel checks), as PNG.
    public static func generated(index: Int, size: Int = 256, gradient: Bool = true) -> Data? {
        let (r, g, b) = colour(for: index)
        var pixels = [UInt8](repeating: 255, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                let shade = gradient ? 1 - 0.45 * Double(x + y) / Double(2 * size) : 1
                let offset = (y * size + x) * 4
                pixels[offset] = UInt8(Double(r) * shade)
                pixels[offset + 1] = UInt8(Double(g) * shade)
                pixels[offset + 2] = UInt8(Double(b) * shade)
            }
        }
        guard let frame = ImageFrame(width: size, height: size, pixels: pixels) else { return nil }
        return KFCrossPlatformImage(frame: frame).kf.pngRepresentation()
    }

    /// Routes `count` generated images on `server` as `/generated/N.png` and returns their URLs.
    public static func serveGenerated(count: Int, on server: TestHTTPServer, gradient: Bool = true) -> [URL] {
        (0..<count).compactMap { index in
            guard let data = generated(index: index, gradient: gradient) else { return nil }
            let path = "/generated/\(index).png"
            server.route(path, .ok(data, contentType: "image/png"))
            return server.url(path)
        }
    }

    /// Routes every image file in `folder` on `server` (sorted by name) and returns their URLs.
    public static func serveFolder(_ folder: URL, on server: TestHTTPServer) throws -> [URL] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        return try names.compactMap { name in
            let ext = (name as NSString).pathExtension.lowercased()
            guard imageExtensions.contains(ext) else { return nil }
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            let path = "/files/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)
            server.route(path, .ok(data))
            return server.url(path)
        }
    }
}
