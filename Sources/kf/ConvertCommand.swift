import ArgumentParser
import Foundation
import Kingfisher

/// `kf convert IN OUT`: decode one image and write it in the format OUT's extension names.
struct ConvertCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode IN and write it to OUT in the format OUT's extension names.",
        discussion: """
        Output formats by extension: .png, .jpg/.jpeg, .gif, .webp. The EXIF orientation is applied, \
        so OUT is upright. GIF and WebP keep every frame of an animation; PNG and JPEG keep the first.

        Exit status: 0 when OUT was written, 1 when IN could not be read or decoded or OUT could \
        not be encoded or written, 2 on a usage error.
        """
    )

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "The file to write; its extension chooses the format.")
    var output: String

    @Option(help: "JPEG or lossy WebP quality: 0...1, or 2...100 as a percentage (default 0.9).")
    var quality: Double?

    @Flag(help: "Write WebP losslessly.")
    var lossless = false

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let ext = URL(fileURLWithPath: output).pathExtension
        guard let format = ImageFormat(fileExtension: ext) else {
            throw CLIError.usage("cannot tell the output format from '\(output)': use .png, .jpg, .jpeg, .gif or .webp")
        }
        var options = ImageEncodingOptions(lossless: lossless)
        if let quality {
            guard quality.isFinite, quality >= 0, quality <= 100 else {
                throw CLIError.usage("--quality must be between 0 and 1, or 2 and 100; got \(quality)")
            }
            options.compressionQuality = quality > 1 ? quality / 100 : quality
        }
        let data = try readInput(input)
        let (image, decoding) = try about(input) { try timed { try KFCrossPlatformImage(data: data) } }
        outputOptions.note("\(input): \(data.count) bytes, decoded \(image.pixelWidth)×\(image.pixelHeight) "
            + "(\(image.frames.count) frame(s)) in \(milliseconds(decoding))")
        let (bytes, encoding) = try about(output) { try timed { try image.encoded(as: format, options: options) } }
        outputOptions.note("\(output): encoded \(bytes.count) bytes of \(format) in \(milliseconds(encoding))")
        try writeOutput(bytes, to: output)
    }
}
