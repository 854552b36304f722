import ArgumentParser
import Foundation
import Kingfisher

/// The `kf` command: Kingfisher's image pipeline from the shell.
struct KF: ParsableCommand {
    /// The release of `kf`, and of the Kingfisher for Linux it is built with, that `kf --version` prints.
    static let version = "0.9.0"

    static let configuration = CommandConfiguration(
        commandName: "kf",
        abstract: "Decode, inspect, convert and process images, and manage the image cache, with Kingfisher for Linux.",
        discussion: """
        Every subcommand takes -q/--quiet (errors only) and -v/--verbose (the cache folder, where \
        each image came from, timings and full errors, on standard error).

        EXIT STATUS
          0    Success.
          1    An input failed: it could not be read, downloaded, decoded,
               processed or written, or the cache could not be used. Each
               failure is one line on standard error: 'kf: INPUT: what went
               wrong'. When fetch or prefetch had several inputs, a last line
               says how many failed ('kf: 2 of 5 inputs failed').
          2    Usage error: an unknown or missing option or argument, a bad
               --processor, conflicting flags. One line on standard error.
          130  Interrupted: Ctrl-C (SIGINT) ends kf at once, killed by the
               signal, and the shell reports 130 (128 + 2). Files written
               with -o are whole or absent; a cache write cut short leaves a
               temporary file that 'kf cache clean' removes.
        """,
        version: "kf \(version) (Kingfisher for Linux)",
        subcommands: [
            FetchCommand.self, PrefetchCommand.self, InfoCommand.self, ConvertCommand.self, ProcessCommand.self,
            CacheCommand.self, ServeCommand.self,
        ]
    )

    /// `kf` and the subcommand names at the start of `arguments`, e.g. `kf cache ls`.
    static func commandPath(_ arguments: [String]) -> String {
        var names = ["kf"]
        var current: any ParsableCommand.Type = KF.self
        for argument in arguments {
            guard let next = current.configuration.subcommands.first(where: { $0.configuration.commandName == argument })
            else { break }
            names.append(argument)
            current = next
        }
        return names.joined(separator: " ")
    }
}

@main
enum Main {
    static func main() {
        // A closed pipe on standard output must end in an error, not a signal.
        signal(SIGPIPE, SIG_IGN)
        unblockInterrupts()
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            command = try KF.parseAsRoot(arguments)
        } catch {
            // --help and `kf help` print their text as ArgumentParser writes it.
            if KF.exitCode(for: error) == .success {
                print(KF.fullMessage(for: error))
                exit(0)
            }
            usageError(KF.message(for: error), arguments: arguments)
        }
        let verbose = (command as? any HasOutputOptions)?.outputOptions.verbose ?? false
        do {
            try command.run()
        } catch let error as CLIError {
            switch error {
            case .usage(let message): usageError(message, arguments: arguments)
            case .reported: exit(1)
            case .failure, .input:
                printError("kf: " + ErrorText.message(error, verbose: verbose))
                exit(1)
            }
        } catch {
            // `kf`, `kf cache` and `kf help SUB` parse to commands whose run throws the help request.
            switch KF.exitCode(for: error) {
            case .success:
                print(KF.fullMessage(for: error))
                exit(0)
            case .validationFailure:
                usageError(KF.message(for: error), arguments: arguments)
            default:
                printError("kf: " + ErrorText.reason(of: error, verbose: verbose))
                exit(1)
            }
        }
    }

    /// Lets Ctrl-C and `kill` end `kf` even when its parent spawned it with those signals blocked
    /// (Foundation's `Process` spawns from dispatch threads, and a child inherits their mask). A
    /// signal the parent chose to ignore stays ignored. Runs before any thread is started.
    static func unblockInterrupts() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// Prints a usage error in one line, pointing at the subcommand's help, and exits with 2.
    static func usageError(_ message: String, arguments: [String]) -> Never {
        let text = message.isEmpty ? "bad arguments" : message
        printError("kf: \(text) (see '\(KF.commandPath(arguments)) --help')")
        exit(2)
    }
}
