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

    @Flag(help: "thumbor's AUTO_WEBP: a thumbor URL without format() is answered in WebP to clients whose Accept names image/webp (with Vary: Accept).")
    var thumborAutoWebp = false

    @Flag(help: "thumbor's AUTO_AVIF: likewise in AVIF for image/avif (WebP first when both are on).")
    var thumborAutoAvif = false

    @Flag(help: "Answer 400 to a thumbor URL naming a filter thumbor has that kf serve does not apply, instead of skipping it (each is logged and counted in kf_serve_unsupported_filters_total either way).")
    var strictFilters = false

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
    /// imgproxy paths through.
    func mounts(insecureUnsigned: Bool, environment: [String: String]) throws -> [GrammarMount] {
        var mounts: [GrammarMount] = []
        if let thumbor {
            let key = thumborKey ?? environment["THUMBOR_SECURITY_KEY"]
            guard key != nil || insecureUnsigned else {
                throw CLIError.usage("--thumbor needs a key: --thumbor-key KEY or THUMBOR_SECURITY_KEY (or --insecure-unsigned)")
            }
            mounts.append(GrammarMount(prefix: thumbor, grammar: ThumborGrammar(
                securityKey: key.map { Data($0.utf8) }, allowsUnsafe: insecureUnsigned, autoWebP: thumborAutoWebp,
                autoAVIF: thumborAutoAvif, strictFilters: strictFilters)))
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
