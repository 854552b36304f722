import ArgumentParser
import Foundation
import Kingfisher

/// The `kf` command: Kingfisher's image pipeline from the shell.
struct KF: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kf",
        abstract: "Decode, inspect, convert and process images, and manage the image cache, with Kingfisher for Linux.",
        discussion: """
        Exit status: 0 on success, 1 when an image or the cache cannot be read, decoded or \
        written (the reason goes to standard error), 2 on a usage error.
        """,
        subcommands: [
            FetchCommand.self, PrefetchCommand.self, InfoCommand.self, ConvertCommand.self, ProcessCommand.self,
            CacheCommand.self,
        ]
    )
}

/// A failure that decides `kf`'s exit status.
enum CLIError: Error {
    /// Bad arguments: exit 2.
    case usage(String)
    /// A bad or unreadable image, or an output that cannot be written: exit 1.
    case failure(String)
}

@main
enum Main {
    static func main() {
        // A closed pipe on standard output must end in an error, not a signal.
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try KF.parseAsRoot()
            try command.run()
        } catch let error as CLIError {
            switch error {
            case .usage(let message):
                printError("kf: \(message)\nSee 'kf --help'.")
                exit(2)
            case .failure(let message):
                printError("kf: \(message)")
                exit(1)
            }
        } catch let error as KingfisherError {
            printError("kf: \(error.errorDescription ?? "\(error)")")
            exit(1)
        } catch {
            let code = KF.exitCode(for: error)
            if code == .success {
                print(KF.fullMessage(for: error))
                exit(0)
            }
            printError(KF.fullMessage(for: error))
            exit(2)
        }
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// Reads a whole input file, or fails with a one-line reason naming it.
func readInput(_ path: String) throws -> Data {
    do {
        return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
    } catch {
        throw CLIError.failure("cannot read \(path): \(describe(error))")
    }
}

/// A short reason for a Foundation file error.
func describe(_ error: any Error) -> String {
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
       let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
        return String(cString: strerror(code.rawValue))
    }
    if nsError.domain == NSCocoaErrorDomain {
        switch nsError.code {
        case NSFileReadNoSuchFileError, NSFileNoSuchFileError: return "no such file"
        case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "permission denied"
        case NSFileWriteOutOfSpaceError: return "no space left on the device"
        default: break
        }
    }
    return nsError.localizedDescription
}
