import ArgumentParser
import Foundation

/// `kf serve config`: the configuration `kf serve run` would start with, and where each value came from.
struct ServeConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the configuration 'kf serve run' would use with these options, and where each value came from.",
        discussion: """
        Takes the options of 'kf serve run' and prints one line per setting: its name, its \
        effective value and its origin: 'flag --NAME', 'variable NAME' (KF_SERVE_*, imgproxy's, or \
        AWS_REGION and AWS_DEFAULT_REGION for s3-region), \
        'file PATH: NAME' (--thumbor-conf) or 'default'. Keys and salts are shown only as set. \
        The settings it cannot honour are named on standard error, as 'run' names them.

        Exit status 0, or 2 when 'run' would refuse the configuration (naming the setting and the value).
        """,
        helpNames: [.short, .long]
    )

    @OptionGroup
    var options: ServeOptions

    func run() throws {
        let resolution = try ServeResolution(options: options, environment: ProcessInfo.processInfo.environment)
        for notice in resolution.notices { printError("kf serve: \(notice)") }
        let width = resolution.report.map(\.setting.count).max() ?? 0
        let valueWidth = min(40, resolution.report.map(\.value.count).max() ?? 0)
        var output = ""
        for line in resolution.report {
            let setting = line.setting.padding(toLength: width, withPad: " ", startingAt: 0)
            let value = line.value.count >= valueWidth ? line.value : line.value.padding(toLength: valueWidth, withPad: " ", startingAt: 0)
            output += "\(setting)  \(value)  \(line.origin)\n"
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }
}
