import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names in one cache folder, read with `opendir`/`readdir` so that the two ways a listing
/// fails stay apart: the folder cannot be opened, or reading it stops with an error.
enum DiskFolderListing {
    /// Why a listing failed.
    enum Failure: Error {
        /// `opendir` failed with this error (a missing folder, a file in its place, no permission).
        case cannotOpen(POSIXError)
        /// `readdir` reported this error before the end of the folder.
        case readFailed(POSIXError)
    }

    /// Every name in the folder at `path` but `.` and `..`, hidden ones included, or why they
    /// could not be read. Names that are not valid UTF-8 are left out: no cache file is named so.
    static func names(atPath path: String) -> Result<[String], Failure> {
        guard let directory = opendir(path) else { return .failure(.cannotOpen(DiskIO.posixError())) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { return .failure(.readFailed(DiskIO.posixError())) }
                return .success(names)
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String? in
                String(validating: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let name, name != ".", name != ".." else { continue }
            names.append(name)
        }
    }

    /// The cache error for `failure` while listing the folder at `url`.
    static func cacheError(_ failure: Failure, folder url: URL) -> KingfisherError {
        switch failure {
        case .cannotOpen: .cacheError(reason: .fileEnumeratorCreationFailed(url: url))
        case .readFailed: .cacheError(reason: .invalidFileEnumeratorContent(url: url))
        }
    }
}
