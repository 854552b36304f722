import Foundation
import Kingfisher

/// A failure that decides `kf`'s exit status.
enum CLIError: Error {
    /// Bad arguments: exit 2.
    case usage(String)
    /// A failure described in full by its message, e.g. `2 of 5 inputs failed`: exit 1.
    case failure(String)
    /// What went wrong with one input (a file, URL, cache folder or output): exit 1.
    case input(String, any Error)
    /// The failures were already printed, one line each: exit 1 with nothing more to say.
    case reported
}

/// A reason written for the command line, printed as it is.
struct Reason: Error, CustomStringConvertible {
    /// The reason, in one line.
    var description: String
}

/// Runs `body`; an error it throws (other than a ``CLIError``) becomes a failure of `input`.
func about<T>(_ input: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as CLIError {
        throw error
    } catch {
        throw CLIError.input(input, error)
    }
}

/// Writes one line on standard error; line breaks and other control characters in `message`
/// become spaces, so one error is always one line.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((oneLine(message) + "\n").utf8))
}

/// `text` with every control character (line breaks, tabs, escapes) replaced by a space.
func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = String.UnicodeScalarView()
    var previousWasBreak = false
    for scalar in text.unicodeScalars {
        if isControl(scalar) {
            // "\r\n" and runs of breaks become one space.
            if !previousWasBreak { result.append(" ") }
            previousWasBreak = true
        } else {
            result.append(scalar)
            previousWasBreak = false
        }
    }
    return String(result)
}

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
        || scalar == "\u{2028}" || scalar == "\u{2029}"
}

/// Reads a whole input file, or fails with a one-line reason naming it.
func readInput(_ path: String) throws -> Data {
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    } catch {
        throw CLIError.input(path, Reason(description: "cannot read: \(describe(error))"))
    }
}

/// Writes `data` to `path` atomically, or fails with a one-line reason naming it.
func writeOutput(_ data: Data, to path: String) throws {
    do {
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw CLIError.input(path, Reason(description: "cannot write: \(describe(error))"))
    }
}

/// A short reason for any error: a Foundation file error as the system's words for it (`No such
/// file or directory`), a ``KingfisherError`` as its description made one clause.
func describe(_ error: any Error) -> String {
    if let error = error as? KingfisherError { return ErrorText.reason(error) }
    if let error = error as? Reason { return error.description }
    if let error = error as? CLIError { return ErrorText.message(error, verbose: false) }
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? any Error,
       case let posix = underlying as NSError, posix.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(truncatingIfNeeded: posix.code)))
    }
    if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(truncatingIfNeeded: nsError.code))) }
    if nsError.domain == NSCocoaErrorDomain {
        switch nsError.code {
        case NSFileReadNoSuchFileError, NSFileNoSuchFileError: return "No such file or directory"
        case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "Permission denied"
        case NSFileWriteOutOfSpaceError: return "No space left on device"
        default: return nsError.localizedDescription
        }
    }
    return String(describing: error)
}

/// ``describe(_:)`` for an error about `url`: a connection failure names its host and port
/// (`could not connect to 127.0.0.1:9: connection refused`).
func describe(_ error: any Error, url: URL?) -> String {
    ErrorText.connectionFailure(error, url: url) ?? describe(error)
}

/// How `kf` words errors: one line, `kf: INPUT: what went wrong`.
enum ErrorText {
    /// The line for `error` (without the `kf: ` prefix); verbose adds the error's code and the
    /// underlying error in full.
    static func message(_ error: CLIError, verbose: Bool) -> String {
        switch error {
        case .usage(let message), .failure(let message): return message
        case .reported: return ""
        case let .input(input, underlying):
            return "\(input): \(reason(of: underlying, verbose: verbose, url: Retrieval.remoteURL(input)))"
        }
    }

    /// What went wrong, for any error; verbose adds the details in brackets. A connection failure
    /// names the host and port of `url` when it is given (else those the error names).
    static func reason(of error: any Error, verbose: Bool, url: URL? = nil) -> String {
        let short = describe(error, url: url)
        guard verbose, let details = details(of: error) else { return short }
        return "\(short) [\(details)]"
    }

    /// A failure to connect, shake hands or exchange with `url`'s host as one line naming its host
    /// and port: `could not connect to 127.0.0.1:9: connection refused`; without `url`, the host
    /// and port the error names, if any.
    static func connectionFailure(_ error: any Error, url: URL?) -> String? {
        guard let failure = NetworkFailure(error) else { return nil }
        return failure.description(for: url)
    }

    /// A ``KingfisherError`` as one clause: the library's sentence without its capital and full
    /// stop, with a Foundation error inside it reduced to the system's words.
    static func reason(_ error: KingfisherError) -> String {
        switch error {
        case .responseError(reason: .URLSessionError(let underlying)):
            if let failure = connectionFailure(underlying, url: nil) { return failure }
            return clause(error.errorDescription ?? "\(error)")
        case .imageSettingError(reason: .dataProviderError(_, let underlying)):
            return "cannot read: \(describe(underlying))"
        case .imageSettingError(reason: .alternativeSourcesExhausted(let failures)):
            let tried = failures.map { failure in
                let text = connectionFailure(failure.error, url: failure.source.url) ?? reason(failure.error)
                return "\(failure.source.url?.absoluteString ?? failure.source.cacheKey): \(text)"
            }
            return "every source failed (\(failures.count) tried): " + tried.joined(separator: "; ")
        case .cacheError(reason: let .cannotCreateDirectory(path, underlying)):
            return "cannot create the cache folder \(path): \(describe(underlying))"
        case .cacheError(reason: let .cannotLoadDataFromDisk(url, underlying)):
            return "cannot read the cached file \(url.path): \(describe(underlying))"
        case .cacheError(reason: let .cannotCreateCacheFile(url, _, _, underlying)):
            return "cannot write the cache file \(url.path): \(describe(underlying))"
        case .cacheError(reason: let .cacheIndexFailed(path, underlying)):
            return "cannot read or write the cache index \(path): \(describe(underlying))"
        case .cacheError(reason: let .invalidURLResource(underlying, _, url)):
            return "cannot inspect \(url.path): \(describe(underlying))"
        default:
            return clause(error.errorDescription ?? "\(error)")
        }
    }

    /// `Cannot decode PNG data: …` → `cannot decode PNG data: …`: a sentence made a clause.
    static func clause(_ sentence: String) -> String {
        var text = sentence
        if text.hasSuffix(".") { text.removeLast() }
        let letters = Array(text.prefix(2))
        if letters.count == 2, letters[0].isUppercase, letters[1].isLowercase {
            text = letters[0].lowercased() + text.dropFirst()
        }
        return text
    }

    /// The error's code, type and underlying error in full, for `--verbose`.
    static func details(of error: any Error) -> String? {
        switch error {
        case let error as KingfisherError:
            var parts = ["KingfisherError \(error.errorCode)"]
            if let underlying = underlying(of: error) {
                parts.append("\(type(of: underlying)): \(String(reflecting: underlying))")
            }
            return parts.joined(separator: "; ")
        case let error as CLIError:
            if case let .input(_, underlying) = error { return details(of: underlying) }
            return nil
        case is Reason:
            return nil
        default:
            let nsError = error as NSError
            return "\(nsError.domain) \(nsError.code): \(String(reflecting: error))"
        }
    }

    /// The error a ``KingfisherError`` wraps, if any.
    static func underlying(of error: KingfisherError) -> (any Error)? {
        switch error {
        case .responseError(reason: .URLSessionError(let underlying)): return underlying
        case .cacheError(reason: let .invalidURLResource(underlying, _, _)): return underlying
        case .cacheError(reason: let .cannotLoadDataFromDisk(_, underlying)): return underlying
        case .cacheError(reason: let .cannotCreateDirectory(_, underlying)): return underlying
        case .cacheError(reason: let .cannotConvertToData(_, underlying)): return underlying
        case .cacheError(reason: let .cannotCreateCacheFile(_, _, _, underlying)): return underlying
        case .cacheError(reason: let .cacheIndexFailed(_, underlying)): return underlying
        case .imageSettingError(reason: let .dataProviderError(_, underlying)): return underlying
        default: return nil
        }
    }
}
