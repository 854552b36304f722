import ArgumentParser
import Foundation
import Kingfisher

/// `kf convert IN OUT`: decode one image and write it in the format OUT's extension names.
struct ConvertCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Decode IN and write it to OUT in the format OUT's extension names.",
        discussion: """
        IN may be PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL. Output formats by extension: .png, \
        .jpg/.jpeg, .gif, .webp, .avif, .jxl; HEIC is read but not written (Kingfisher has no HEVC \
        encoder). The EXIF orientation is applied, so OUT is upright. GIF and WebP keep every \
        frame of an animation; PNG and JPEG keep the first.

        Exit status: 0 when OUT was written, 1 when IN could not be read or decoded or OUT could \
        not be encoded or written (a .heic OUT included), 2 on a usage error.
        """
    )

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "The file to write; its extension chooses the format.")
    var output: String

    @Option(help: "JPEG, lossy WebP, AVIF or lossy JPEG XL quality: 0...1, or 2...100 as a percentage (default 0.9).")
    var quality: Double?

    @Flag(help: "Write WebP or JPEG XL losslessly.")
    var lossless = false

    @Option(help: "AVIF encoder speed: 0 (slowest, smallest) to 10 (fastest), as avifenc counts it (default 6).")
    var speed: Int?

    @Option(help: "JPEG XL encoder effort: 1 (fastest) to 9 (slowest, smallest), as cjxl counts it (default 7).")
    var effort: Int?

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let format = try outputFormat()
        let options = try encodingOptions(for: format)
        let data = try readInput(input)
        let quiet = !outputOptions.verbose
        let (image, decoding) = try about(input) {
            try timed { try hidingLibraryDiagnostics(verbose: !quiet) { try KFCrossPlatformImage(data: data) } }
        }
        outputOptions.note("\(input): \(data.count) bytes, decoded \(image.pixelWidth)×\(image.pixelHeight) "
            + "(\(image.frames.count) frame(s)) in \(milliseconds(decoding))")
        let (bytes, encoding) = try about(output) {
            try timed { try hidingLibraryDiagnostics(verbose: !quiet) { try image.encoded(as: format, options: options) } }
        }
        outputOptions.note("\(output): encoded \(bytes.count) bytes of \(format) in \(milliseconds(encoding))")
        try writeOutput(bytes, to: output)
    }

    /// The format OUT's extension names; HEIC is refused (exit 1) before IN is read.
    private func outputFormat() throws -> ImageFormat {
        let ext = URL(fileURLWithPath: output).pathExtension
        guard let format = ImageFormat(fileExtension: ext) else {
            throw CLIError.usage("cannot tell the output format from '\(output)': use .png, .jpg, .jpeg, .gif, .webp, .avif or .jxl")
        }
        if format == .HEIC {
            throw CLIError.input(output, Reason(description: HEICOutput.refusal))
        }
        return format
    }

    /// The encoder settings the flags give, each checked against its range.
    private func encodingOptions(for format: ImageFormat) throws -> ImageEncodingOptions {
        var options = ImageEncodingOptions(lossless: lossless)
        if let quality {
            guard quality.isFinite, quality >= 0, quality <= 100 else {
                throw CLIError.usage("--quality must be between 0 and 1, or 2 and 100; got \(quality)")
            }
            options.compressionQuality = quality > 1 ? quality / 100 : quality
        }
        if let speed {
            guard (0...10).contains(speed) else { throw CLIError.usage("--speed must be 0...10; got \(speed)") }
            guard format == .AVIF else { throw CLIError.usage("--speed applies to AVIF output only") }
            options.avifSpeed = speed
        }
        if let effort {
            guard (1...9).contains(effort) else { throw CLIError.usage("--effort must be 1...9; got \(effort)") }
            guard format == .JXL else { throw CLIError.usage("--effort applies to JPEG XL output only") }
            options.jxlEffort = effort
        }
        return options
    }
}

/// Why `kf` writes no HEIC, in the words every command refuses it with.
enum HEICOutput {
    /// The refusal, as one clause.
    static let refusal = "cannot write HEIC: Kingfisher decodes HEIC but has no HEVC encoder; use .avif, .jxl, .webp, .jpg or .png"
    /// The refusal for `kf fetch -o FILE.heic` when the image is in `format`: only a HEIC original is copied.
    static func refusal(copying format: ImageFormat) -> String {
        "cannot write HEIC: the image is \(format), and only a HEIC original is copied; "
            + "Kingfisher has no HEVC encoder, so use .avif, .jxl, .webp, .jpg or .png"
    }
}
