import Foundation

/// A folder whose files a grammar may serve as sources (`kf serve --local-root`, thumbor's
/// `FILE_LOADER_ROOT_PATH`, imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`).
///
/// A source names a file by its path relative to the folder. A path that is absolute, holds a `..`
/// component, or leads (through a symbolic link) out of the folder is refused with 403; a missing
/// file, or a folder, is 404. Each refusal names ``setting``.
public struct LocalFileRoot: Sendable, Hashable {
    /// The folder, with symbolic links resolved.
    public let directory: String
    /// The setting that named the folder, for messages (`--local-root`).
    public let setting: String

    /// The folder at `path`, named by `setting`.
    ///
    /// - Throws: ``ImageServerError`` (500) when `path` is not an existing folder.
    public init(path: String, setting: String) throws {
        guard let real = Self.realPath(path) else {
            throw ImageServerError(.internalServerError, "\(setting) \(path): no such folder")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ImageServerError(.internalServerError, "\(setting) \(path): not a folder")
        }
        self.directory = real
        self.setting = setting
    }

    /// The file a source names: `relativePath` below the folder, percent-decoded already.
    ///
    /// - Throws: ``ImageServerError``: 403 for an absolute path, a `..` component or a path that
    ///   leaves the folder through a link; 404 when there is no such file.
    public func file(at relativePath: String) throws -> LocalFile {
        guard !relativePath.isEmpty else { throw ImageServerError(.notFound, "the local source names no file") }
        guard !relativePath.hasPrefix("/") else {
            throw ImageServerError(.forbidden,
                "the local source '\(relativePath)' is an absolute path; name the file relative to the folder of \(setting)")
        }
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.contains("..") else {
            throw ImageServerError(.forbidden, "the local source '\(relativePath)' holds '..'; files outside the folder of \(setting) are not served")
        }
        guard !relativePath.utf8.contains(0) else { throw ImageServerError(.badRequest, "the local source holds a NUL byte") }
        let joined = directory == "/" ? "/" + relativePath : directory + "/" + relativePath
        guard let real = Self.realPath(joined) else {
            throw ImageServerError(.notFound, "no such file below the folder of \(setting): \(relativePath)")
        }
        guard real.hasPrefix(directory == "/" ? "/" : directory + "/") else {
            throw ImageServerError(.forbidden,
                "the local source '\(relativePath)' leads out of the folder of \(setting) through a symbolic link")
        }
        var status = stat()
        guard stat(real, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw ImageServerError(.notFound, "not a file below the folder of \(setting): \(relativePath)")
        }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        return LocalFile(url: URL(fileURLWithPath: real), size: Int64(status.st_size), modified: modified)
    }

    /// `path` with every symbolic link resolved, or `nil` when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// A file a ``LocalFileRoot`` lets the server read.
public struct LocalFile: Sendable, Hashable {
    /// The file, its links resolved.
    public let url: URL
    /// Its size in bytes when it was checked.
    public let size: Int64
    /// Its modification time in nanoseconds since 1970, which goes into the cache key so that a
    /// changed file makes new renditions.
    public let modified: Int64
}
