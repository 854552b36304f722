import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` with standard error pointed at `/dev/null` unless `verbose`.
///
/// Debian builds libjxl so that a corrupt or truncated file makes it print its own diagnostic
/// lines on standard error before the decoder reports the failure; kf words every failure in one
/// line of its own, so those lines are shown only with `--verbose`. For the single-threaded
/// decode and encode of `convert`, `process` and `info --verify`, where kf itself prints nothing
/// meanwhile.
func hidingLibraryDiagnostics<T>(verbose: Bool, _ body: () throws -> T) rethrows -> T {
    guard !verbose else { return try body() }
    fflush(nil)
    let saved = dup(STDERR_FILENO)
    let null = open("/dev/null", O_WRONLY)
    guard saved >= 0, null >= 0, dup2(null, STDERR_FILENO) >= 0 else {
        if saved >= 0 { close(saved) }
        if null >= 0 { close(null) }
        return try body()
    }
    close(null)
    defer {
        fflush(nil)
        dup2(saved, STDERR_FILENO)
        close(saved)
    }
    return try body()
}
