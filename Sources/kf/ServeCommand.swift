import ArgumentParser
import Foundation
import Kingfisher
import KingfisherServer
import Logging
import Synchronization

/// `kf serve`: the image pipeline behind a port, and `kf serve sign` for the paths it answers.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve processed images over HTTP from signed URLs, or sign such URLs.",
        discussion: """
        An image is requested as /SIGNATURE/FORMAT/SPEC/SOURCE: FORMAT is jpeg, png, webp, gif, \
        avif, jxl or auto (AVIF when the client's Accept header names image/avif, else WebP when \
        it names image/webp, else JPEG, PNG or GIF; image/* and */* do not count, q=0 refuses); \
        SPEC is a processor chain, percent-encoded, or '-' for none; SOURCE is the source URL in \
        base64url. 'kf serve sign' prints such paths. AVIF is encoded at speed 8 unless \
        --avif-speed says otherwise: slower speeds make files a little smaller but make the \
        first client of each rendition wait seconds for a large image (see 'kf serve run --help').
        """,
        subcommands: [ServeRunCommand.self, ServeSignCommand.self, ServeConfigCommand.self],
        defaultSubcommand: ServeRunCommand.self,
        // No help flag of its own: `kf serve --help` is the default subcommand's, so it lists the
        // options of `run` (and names `sign`); `kf help serve` prints this overview.
        helpNames: []
    )
}

/// The key from `--key`, else `KF_SERVE_KEY`.
func serveKey(_ option: String?) -> String? {
    if let option, !option.isEmpty { return option }
    if let value = ProcessInfo.processInfo.environment["KF_SERVE_KEY"], !value.isEmpty { return value }
    return nil
}

/// `kf serve sign`: prints the signed path of each source.
struct ServeSignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print the signed path to request for each SOURCE_URL, one line per source.",
        discussion: "Exit status: 0 when every path was printed, 2 on a usage error (a bad URL, SPEC or FORMAT, no key).",
        helpNames: [.short, .long]
    )

    @Option(help: "The signing key (default: $KF_SERVE_KEY).")
    var key: String?

    @Option(help: "The processor chain, e.g. 'downsample(200x200)|>round(20)'; '-' for none.")
    var processor: String = ImagePath.noProcessing

    @Option(help: "The output format: jpeg, png, webp, gif, avif, jxl or auto.")
    var format: String = OutputFormat.auto.rawValue

    @Argument(help: "The http(s) URLs of the source images, or file:PATH for a file below the server's --local-root (PATH relative, percent-encoded).")
    var sources: [String]

    /// `file:PATH` as a source URL, or `nil`.
    static func localSource(_ text: String) -> URL? {
        guard text.lowercased().hasPrefix("file:"), let url = URL(string: text), ImagePath.isServable(url) else { return nil }
        return url
    }

    func run() throws {
        guard let key = serveKey(key) else { throw CLIError.usage("a signing key is needed: --key KEY or KF_SERVE_KEY") }
        guard let outputFormat = OutputFormat(rawValue: format.lowercased()) else {
            throw CLIError.usage("--format must be jpeg, png, webp, gif, avif, jxl or auto; got '\(format)'")
        }
        if processor != ImagePath.noProcessing {
            do {
                _ = try ProcessorSpec(parsing: processor).processor(readsFiles: false)
            } catch let error as ProcessorSpecError {
                throw CLIError.usage("bad --processor: \(error.description)")
            }
        }
        guard !sources.isEmpty else { throw CLIError.usage("no SOURCE_URL given") }
        let signer = URLSigner(key: Data(key.utf8))
        for source in sources {
            guard let url = Retrieval.remoteURL(source) ?? Self.localSource(source) else {
                throw CLIError.usage("\(source): only http and https URLs, and file:PATH below the server's --local-root, can be served")
            }
            print(ImagePath(source: url, spec: processor, format: outputFormat, signer: signer).path)
        }
    }
}
