import Hummingbird

/// A URL grammar the server answers: it turns the path of a request into a ``RenditionRequest``.
///
/// The server mounts each grammar at a path prefix (or the root of a listener) and hands it the
/// rest of the path exactly as the client sent it, still percent-encoded and without the query,
/// because signatures cover those bytes.
public protocol RenditionGrammar: Sendable {
    /// A short name for log lines and metric labels (`kf`, `thumbor`, `imgproxy`).
    var name: String { get }

    /// Parses and authenticates `rawPath` (starting with `/`, below the mount point).
    ///
    /// - Throws: ``ImageServerError`` with the status this grammar's own server answers: a bad
    ///   signature, a malformed path, an unknown option.
    func request(forRawPath rawPath: Substring) throws -> RenditionRequest

    /// The status answered when the source is outside the allow-list (thumbor says 400, imgproxy 404,
    /// `kf serve` 403).
    var refusedSourceStatus: HTTPResponse.Status { get }

    /// The folder whose files `file:` sources of this grammar name, or `nil` when it serves none.
    var localRoot: LocalFileRoot? { get }

    /// The setting that would serve local files, for the refusal of a `file:` source.
    var localRootSetting: String { get }
}

extension RenditionGrammar {
    /// The folder whose files `file:` sources of this grammar name; `nil` (the default) serves none.
    public var localRoot: LocalFileRoot? { nil }
    /// The setting that would serve local files, for the refusal of a `file:` source.
    public var localRootSetting: String { "--local-root" }
}
