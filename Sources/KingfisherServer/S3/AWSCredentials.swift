import Foundation

/// An AWS access key, its secret and (for temporary credentials) a session token, with where they came from.
///
/// ``resolve(environment:)`` finds them as the AWS command-line tools do for static keys: the
/// `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/`AWS_SESSION_TOKEN` variables first, then the
/// profile `AWS_PROFILE` (else `default`) of the shared credentials file
/// (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`). Roles, SSO and instance metadata
/// are not consulted.
public struct AWSCredentials: Sendable, Hashable {
    /// The access key id (`AKIA…`, or `ASIA…` for temporary credentials).
    public var accessKeyID: String
    /// The secret access key; never logged or shown.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `x-amz-security-token`.
    public var sessionToken: String?
    /// Where the credentials were read, for messages: `AWS_ACCESS_KEY_ID`, `profile 'x' of /path`.
    public var origin: String

    /// Credentials from their parts; `origin` says where they came from in messages.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, origin: String = "the configuration") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.origin = origin
    }

    /// The credentials `environment` leads to, or `nil` when it names none (requests then go unsigned).
    ///
    /// - Throws: ``S3ConfigurationError`` when only one of the key id and the secret is set, when
    ///   `AWS_PROFILE` names a profile the file lacks, or when that profile is incomplete.
    public static func resolve(environment: [String: String]) throws -> AWSCredentials? {
        let id = environment["AWS_ACCESS_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 }
        let secret = environment["AWS_SECRET_ACCESS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        switch (id, secret) {
        case let (id?, secret?):
            return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"],
                                  origin: "AWS_ACCESS_KEY_ID")
        case (.some, nil):
            throw S3ConfigurationError("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not")
        case (nil, .some):
            throw S3ConfigurationError("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not")
        case (nil, nil):
            break
        }
        let path = environment["AWS_SHARED_CREDENTIALS_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { "\($0)/.aws/credentials" }
        let named = environment["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 }
        let profile = named ?? "default"
        guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            if let named { throw S3ConfigurationError("AWS_PROFILE is '\(named)' but there is no credentials file at \(path ?? "~/.aws/credentials")") }
            return nil
        }
        guard let fields = sharedFileProfiles(text)[profile] else {
            if let named { throw S3ConfigurationError("AWS_PROFILE is '\(named)' but \(path) has no [\(named)] profile") }
            return nil
        }
        let origin = "profile '\(profile)' of \(path)"
        guard let id = fields["aws_access_key_id"], !id.isEmpty, let secret = fields["aws_secret_access_key"], !secret.isEmpty else {
            throw S3ConfigurationError("\(origin) needs both aws_access_key_id and aws_secret_access_key")
        }
        return AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: fields["aws_session_token"], origin: origin)
    }

    /// The profiles of a shared credentials file: `[name]` sections of `key = value` lines, keys
    /// lowercased; `#` and `;` start comments, as in the AWS tools' INI dialect.
    static func sharedFileProfiles(_ text: String) -> [String: [String: String]] {
        var profiles: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                var name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                // The config file's spelling, `[profile name]`, is accepted here too.
                if name.hasPrefix("profile ") { name = name.dropFirst("profile ".count).trimmingCharacters(in: .whitespaces) }
                current = name
                profiles[name, default: [:]] = profiles[name, default: [:]]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            profiles[current, default: [:]][key] = value
        }
        return profiles
    }
}
