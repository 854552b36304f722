import ArgumentParser
import Foundation
import KingfisherServer

/// The `kf serve` options that mount thumbor's and imgproxy's URL grammars.
struct ServeGrammarOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Serve thumbor's URLs below PREFIX ('/' for the root, in place of kf's own paths); "
            + "the key is --thumbor-key, $THUMBOR_SECURITY_KEY or the SECURITY_KEY of --thumbor-conf ($KF_SERVE_THUMBOR).",
        valueName: "PREFIX"))
    var thumbor: String?

    @Option(help: ArgumentHelp("thumbor's SECURITY_KEY ($KF_SERVE_THUMBOR_KEY, else $THUMBOR_SECURITY_KEY).", valueName: "KEY"))
    var thumborKey: String?

    @Flag(help: "thumbor's AUTO_WEBP: a thumbor URL without format() is answered in WebP to clients whose Accept names image/webp (with Vary: Accept) ($KF_SERVE_THUMBOR_AUTO_WEBP, else AUTO_WEBP of --thumbor-conf).")
    var thumborAutoWebp = false

    @Flag(help: "thumbor's AUTO_AVIF: likewise in AVIF for image/avif (WebP first when both are on) ($KF_SERVE_THUMBOR_AUTO_AVIF).")
    var thumborAutoAvif = false

    @Flag(help: "Answer 400 to a thumbor URL naming a filter thumbor has that kf serve does not apply, instead of skipping it (each is logged and counted in kf_serve_unsupported_filters_total either way) ($KF_SERVE_STRICT_FILTERS).")
    var strictFilters = false

    @Option(help: ArgumentHelp(
        "Read thumbor's configuration file (thumbor.conf): its literal settings that map onto kf serve's, "
            + "below the flags and KF_SERVE_* variables; each setting it cannot honour is named on standard error "
            + "($KF_SERVE_THUMBOR_CONF).",
        valueName: "FILE"))
    var thumborConf: String?

    @Option(help: ArgumentHelp(
        "Serve imgproxy's URLs below PREFIX ('/' for the root); configured from imgproxy's own variables "
            + "($IMGPROXY_KEY, $IMGPROXY_SALT, $IMGPROXY_SIGNATURE_SIZE, $IMGPROXY_PRESETS, ...) ($KF_SERVE_IMGPROXY).",
        valueName: "PREFIX"))
    var imgproxy: String?

    @Option(help: ArgumentHelp("imgproxy's key in hex, in place of $IMGPROXY_KEY ($KF_SERVE_IMGPROXY_KEY).", valueName: "HEX"))
    var imgproxyKey: String?

    @Option(help: ArgumentHelp("imgproxy's salt in hex, in place of $IMGPROXY_SALT ($KF_SERVE_IMGPROXY_SALT).", valueName: "HEX"))
    var imgproxySalt: String?
}
