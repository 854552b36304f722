import Foundation
import KingfisherServer

/// `kf serve`'s S3 settings, each from its flag, else its `KF_SERVE_*` variable, else imgproxy's
/// `IMGPROXY_S3_*` variable (only with `--imgproxy` and `IMGPROXY_USE_S3`, as imgproxy reads them
/// only then), else thumbor-aws's loader settings in `--thumbor-conf`, else the default.
enum ServeS3Resolution {
    /// thumbor's S3 loader from `thumbor-s3-bucket` and `thumbor-s3-root-path`, or `nil` when no bucket is given.
    ///
    /// - Throws: `CLIError.usage` for a bucket without `--thumbor PREFIX`, a malformed bucket name, and
    ///   thumbor-aws's loader in `thumbor` without a bucket.
    static func thumborLoader(_ options: ServeS3Options, resolver: inout Resolver, thumbor: ThumborImport?,
                              thumborConf: String?, mountsThumbor: Bool) throws -> ThumborS3Loader? {
        let bucket = try resolver.string("thumbor-s3-bucket", flag: options.thumborS3Bucket)
        let rootPath = try resolver.string("thumbor-s3-root-path", flag: options.thumborS3RootPath) ?? ""
        guard let bucket else {
            if thumbor?.readsAWSLoader == true {
                throw CLIError.usage("--thumbor-conf \(thumborConf ?? ""): LOADER = '\(ThumborImport.awsLoader)' needs AWS_LOADER_BUCKET_NAME "
                                     + "(thumbor-aws's default bucket, 'thumbor', is not assumed), or --thumbor-s3-bucket")
            }
            return nil
        }
        guard mountsThumbor else {
            let named = if case .variable(let variable)? = resolver.origins["thumbor-s3-bucket"] { variable } else { "--thumbor-s3-bucket" }
            throw CLIError.usage("\(named) needs --thumbor PREFIX")
        }
        guard S3Location(bucket: bucket, key: "key") != nil else {
            throw CLIError.usage("\(resolver.given("thumbor-s3-bucket", bucket)): not an S3 bucket name")
        }
        return ThumborS3Loader(bucket: bucket, rootPath: rootPath)
    }

    /// The S3 configuration of the server, or `nil` when nothing reads from S3: S3 is on with
    /// `thumborLoader`, a region or endpoint given, or an imgproxy mount with `IMGPROXY_USE_S3`.
    ///
    /// - Throws: `CLIError.usage` naming the setting for a malformed value, an imgproxy S3 setting kf
    ///   refuses, or unusable credentials.
    static func configuration(_ options: ServeS3Options, resolver: inout Resolver, mounts: [GrammarMount],
                              thumborLoader: ThumborS3Loader?, environment: [String: String],
                              notices: inout [String]) throws -> S3SourceConfiguration? {
        let imgproxyUsesS3 = mounts.contains { ($0.grammar as? ImgproxyGrammar)?.configuration.usesS3 == true }
        do {
            // imgproxy's variables, with its defaults, as imgproxy reads them; kf's settings override them.
            let imgproxy = imgproxyUsesS3 ? try S3SourceConfiguration(imgproxyEnvironment: environment) : nil
            if let imgproxy { importVariables(of: imgproxy, into: &resolver, environment: environment, notices: &notices) }

            let region = try resolver.string("s3-region", flag: options.s3Region, reportsDefault: false)
            let fallback = fallbackRegion(environment)
            if region == nil { resolver.reportFallback("s3-region", fallback.region, origin: fallback.origin) }
            let endpointText = try resolver.string("s3-endpoint", flag: options.s3Endpoint)
            let endpoint = try endpointText.map { text in
                do {
                    return try S3SourceConfiguration.endpointURL(text)
                } catch let error as S3ConfigurationError {
                    let named = switch resolver.origins["s3-endpoint"] {
                    case .variable(let variable)?, .imgproxy(let variable)?: variable
                    case .file(let setting, let path)?: "\(path): \(setting)"
                    default: "--s3-endpoint"
                    }
                    throw CLIError.usage("S3: \(error) (\(named))")
                }
            }
            let virtualHosts = try resolver.bool("s3-virtual-hosts", flag: options.s3VirtualHosts ? true : nil, default: false)
            let buckets = try resolver.list("s3-allow-bucket", flag: options.s3AllowedBuckets)

            guard imgproxyUsesS3 || region != nil || endpoint != nil || thumborLoader != nil else { return nil }
            var configuration = try imgproxy ?? S3SourceConfiguration(
                region: fallback.region, credentials: try AWSCredentials.resolve(environment: environment))
            configuration.region = region ?? fallback.region
            if let endpoint { configuration.endpoint = endpoint }
            configuration.usesPathStyle = !virtualHosts
            if !buckets.isEmpty { configuration.allowedBuckets = buckets }
            if let bucket = thumborLoader?.bucket, !configuration.allowedBuckets.isEmpty, !configuration.allowedBuckets.contains(bucket) {
                configuration.allowedBuckets.append(bucket)
            }
            return configuration
        } catch let error as S3ConfigurationError {
            throw CLIError.usage("S3: \(error)")
        }
    }

    /// The region when no setting gives one: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else
    /// us-east-1, with where it came from.
    static func fallbackRegion(_ environment: [String: String]) -> (region: String, origin: String) {
        for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
            if let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty { return (text, "variable \(name)") }
        }
        return (S3SourceConfiguration.defaultRegion, SettingOrigin.default.description)
    }

    /// Offers the values imgproxy's set variables gave `imgproxy` to the resolver, below the flags
    /// and `KF_SERVE_*` variables and above thumbor.conf (whose value is then named as not read).
    private static func importVariables(of imgproxy: S3SourceConfiguration, into resolver: inout Resolver,
                                        environment: [String: String], notices: inout [String]) {
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        var values: [(setting: String, variable: String, value: any Sendable)] = []
        if isSet("IMGPROXY_S3_REGION") { values.append(("s3-region", "IMGPROXY_S3_REGION", imgproxy.region)) }
        if isSet("IMGPROXY_S3_ENDPOINT"), let text = environment["IMGPROXY_S3_ENDPOINT"] {
            values.append(("s3-endpoint", "IMGPROXY_S3_ENDPOINT", text))
        }
        if isSet("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE") {
            values.append(("s3-virtual-hosts", "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE", !imgproxy.usesPathStyle))
        }
        if !imgproxy.allowedBuckets.isEmpty {
            values.append(("s3-allow-bucket", "IMGPROXY_S3_ALLOWED_BUCKETS", imgproxy.allowedBuckets))
        }
        for (setting, variable, value) in values {
            let origin = SettingOrigin.imgproxy(variable)
            if let file = resolver.imported[setting] {
                notices.append("\(file.origin) is overridden by \(origin) for \(setting); not read")
            }
            resolver.imported[setting] = ImportedValue(value: value, origin: origin)
        }
    }
}
