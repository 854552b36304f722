import ArgumentParser
import Foundation
import KingfisherServer

/// The `kf serve` options that mount thumbor's and imgproxy's URL grammars.
struct ServeGrammarOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve thumbor's URLs below PREFIX ('/' for the root, in place of kf's own paths); "
            + "the key is --thumbor-key or $THUMBOR_SECURITY_KEY.",
        valueName: "PREFIX"))
    var thumbor: String?

    @Option(help: ArgumentHelp("thumbor's SECURITY_KEY (default: $THUMBOR_SECURITY_KEY).", valueName: "KEY"))
    var thumborKey: String?

    @Option(help: ArgumentHelp(
        "Serve imgproxy's URLs below PREFIX ('/' for the root); configured from imgproxy's own variables "
            + "($IMGPROXY_KEY, $IMGPROXY_SALT, $IMGPROXY_SIGNATURE_SIZE, $IMGPROXY_PRESETS, ...).",
        valueName: "PREFIX"))
    var imgproxy: String?

    @Option(help: ArgumentHelp("imgproxy's key in hex, in place of $IMGPROXY_KEY.", valueName: "HEX"))
    var imgproxyKey: String?

    @Option(help: ArgumentHelp("imgproxy's salt in hex, in place of $IMGPROXY_SALT.", valueName: "HEX"))
    var imgproxySalt: String?

    /// The mounts these options ask for; `insecureUnsigned` lets thumbor's `unsafe` and unsigned
    /// imgproxy paths through; thumbor's images come from S3 through `thumborS3Loader` when given.
    func mounts(insecureUnsigned: Bool, environment: [String: String], thumborS3Loader: ThumborS3Loader? = nil) throws -> [GrammarMount] {
        var mounts: [GrammarMount] = []
        if let thumbor {
            let key = thumborKey ?? environment["THUMBOR_SECURITY_KEY"]
            guard key != nil || insecureUnsigned else {
                throw CLIError.usage("--thumbor needs a key: --thumbor-key KEY or THUMBOR_SECURITY_KEY (or --insecure-unsigned)")
            }
            mounts.append(GrammarMount(prefix: thumbor, grammar: ThumborGrammar(
                securityKey: key.map { Data($0.utf8) }, allowsUnsafe: insecureUnsigned, s3Loader: thumborS3Loader)))
        }
        if let imgproxy {
            var variables = environment
            if let imgproxyKey { variables["IMGPROXY_KEY"] = imgproxyKey }
            if let imgproxySalt { variables["IMGPROXY_SALT"] = imgproxySalt }
            let configuration: ImgproxyConfiguration
            do {
                configuration = try ImgproxyConfiguration(environment: variables)
            } catch {
                throw CLIError.usage("imgproxy's configuration: \(error)")
            }
            guard configuration.signsURLs || insecureUnsigned else {
                throw CLIError.usage("--imgproxy needs a key and salt: IMGPROXY_KEY and IMGPROXY_SALT, or --imgproxy-key and --imgproxy-salt (or --insecure-unsigned)")
            }
            mounts.append(GrammarMount(prefix: imgproxy, grammar: ImgproxyGrammar(
                configuration: configuration, allowsUnsigned: insecureUnsigned)))
        }
        let prefixes = mounts.map(\.prefix)
        guard Set(prefixes).count == prefixes.count else {
            throw CLIError.usage("--thumbor and --imgproxy need different prefixes: both signatures are a free first segment")
        }
        return mounts
    }
}
