import ArgumentParser
import Foundation
import Kingfisher

/// `kf process IN OUT --processor SPEC`: run a processor chain on one image and write the result.
struct ProcessCommand: ParsableCommand, HasOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Run a processor chain on IN and write the result to OUT.",
        discussion: """
        SPEC chains processors with '|>', as Kingfisher's code does, for example \
        'downsample(200x200)|>round(20)|>blur(4)'. Sizes are WxH in points, colours #RRGGBBAA.

        \(ProcessorSpec.grammar)

        IN may be PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL. The output format is the \
        --serializer's when given; otherwise the one OUT's extension names (.png, .jpg, .gif, \
        .webp, .avif, .jxl); otherwise the input's own format, as Kingfisher's default serializer \
        keeps it (a HEIC input gives JPEG, or PNG when the result has transparency: HEIC is read \
        but not written).

        Exit status: 0 when OUT was written, 1 when IN could not be read, decoded or processed or \
        OUT could not be encoded or written (a .heic OUT included), 2 on a usage error (a bad SPEC \
        included).
        """
    )

    @Argument(help: "The image to read.")
    var input: String

    @Argument(help: "The file to write.")
    var output: String

    @Option(help: "The processor chain, e.g. 'downsample(200x200)|>round(20)'.")
    var processor: String

    @Option(help: "How to encode the result: default (the input's format), png, jpeg, gif, webp, avif or jxl.")
    var serializer: String?

    @Option(help: "Scale of the images processed: sizes in SPEC are points, pixels = points × scale.")
    var scale: Double = 1

    @OptionGroup var outputOptions: OutputOptions

    func run() throws {
        let chain: any ImageProcessor
        do {
            chain = try ProcessorSpec(parsing: processor).processor()
        } catch let error as ProcessorSpecError {
            throw CLIError.usage("bad --processor: \(error.description)")
        }
        guard scale.isFinite, scale > 0 else {
            throw CLIError.usage("--scale must be a positive number; got \(scale)")
        }
        let cacheSerializer = try chosenSerializer()
        let data = try readInput(input)
        let options = KingfisherParsedOptionsInfo([.scaleFactor(CGFloat(scale)), .processor(chain)])
        let verbose = outputOptions.verbose
        let (processed, processing) = timed {
            hidingLibraryDiagnostics(verbose: verbose) { chain.process(item: .data(data), options: options) }
        }
        guard let image = processed else {
            // Decoding is the usual failure; its error says exactly what is wrong with the input.
            _ = try about(input) {
                try hidingLibraryDiagnostics(verbose: verbose) { try KFCrossPlatformImage(data: data, options: options.imageCreatingOptions) }
            }
            throw CLIError.input(input, Reason(description: "the processor \(chain.identifier) could not process the image"))
        }
        outputOptions.note("\(input): \(data.count) bytes, decoded and processed to \(image.pixelWidth)×\(image.pixelHeight) "
            + "in \(milliseconds(processing))")
        let (encoded, encoding) = timed { hidingLibraryDiagnostics(verbose: verbose) { cacheSerializer.data(with: image, original: data) } }
        guard let bytes = encoded else {
            throw CLIError.input(output, Reason(description: "the result could not be encoded"))
        }
        outputOptions.note("\(output): encoded \(bytes.count) bytes of \(ImageFormat(data: bytes)) in \(milliseconds(encoding))")
        try writeOutput(bytes, to: output)
    }

    private func chosenSerializer() throws -> any CacheSerializer {
        switch serializer?.lowercased() {
        case nil:
            let ext = URL(fileURLWithPath: output).pathExtension
            guard let format = ImageFormat(fileExtension: ext) else { return DefaultCacheSerializer.default }
            if format == .HEIC { throw CLIError.input(output, Reason(description: HEICOutput.refusal)) }
            return Self.serializer(for: format)
        case "default": return DefaultCacheSerializer.default
        case "png": return FormatIndicatedCacheSerializer.png
        case "jpeg", "jpg": return FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.9)
        case "gif": return FormatIndicatedCacheSerializer.gif
        case "webp": return FormatIndicatedCacheSerializer.webp
        case "avif": return FormatIndicatedCacheSerializer.avif(compressionQuality: 0.9)
        case "jxl": return FormatIndicatedCacheSerializer.jxl(compressionQuality: 0.9)
        case "heic", "heif": throw CLIError.input(output, Reason(description: HEICOutput.refusal))
        case let other?:
            throw CLIError.usage("--serializer must be default, png, jpeg, gif, webp, avif or jxl; got '\(other)'")
        }
    }

    private static func serializer(for format: ImageFormat) -> any CacheSerializer {
        switch format {
        case .PNG, .unknown, .HEIC: return FormatIndicatedCacheSerializer.png
        case .JPEG: return FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.9)
        case .GIF: return FormatIndicatedCacheSerializer.gif
        case .WebP: return FormatIndicatedCacheSerializer.webp
        case .AVIF: return FormatIndicatedCacheSerializer.avif(compressionQuality: 0.9)
        case .JXL: return FormatIndicatedCacheSerializer.jxl(compressionQuality: 0.9)
        }
    }
}
