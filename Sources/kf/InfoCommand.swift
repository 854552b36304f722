import ArgumentParser
import Foundation
import Kingfisher

/// `kf info FILE`: what an image's header says, without decoding its pixels.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show an image's format, upright pixel size, frames, loop count and EXIF orientation.",
        discussion: "Reads only the header unless --verify is given, which decodes every frame too."
    )

    @Argument(help: "The image file (PNG, JPEG, GIF or WebP).")
    var file: String

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Flag(help: "Decode the whole image as well, so a damaged body is reported.")
    var verify = false

    /// The facts printed, in JSON field order.
    struct Report: Encodable {
        var file: String
        var format: String
        var width: Int
        var height: Int
        var frames: Int
        var loopCount: Int
        var orientation: Int
        var hasAlpha: Bool
    }

    func run() throws {
        let data = try readInput(file)
        let header = try ImageHeader(data: data)
        var report = Report(
            file: file, format: header.format.rawValue,
            width: header.orientedPixelSize.width, height: header.orientedPixelSize.height,
            frames: header.frameCount, loopCount: header.loopCount,
            orientation: header.orientation.rawValue, hasAlpha: header.hasAlpha)
        if verify {
            let image = try KFCrossPlatformImage(data: data)
            report.width = image.pixelWidth
            report.height = image.pixelHeight
            report.frames = image.frames.count
            report.hasAlpha = !image.isOpaque
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("""
            file:        \(report.file)
            format:      \(report.format)
            size:        \(report.width)×\(report.height) pixels
            frames:      \(report.frames)
            loop count:  \(report.loopCount == 0 && report.frames > 1 ? "0 (forever)" : String(report.loopCount))
            orientation: \(report.orientation)
            alpha:       \(report.hasAlpha ? "yes" : "no")
            """)
        }
    }
}
