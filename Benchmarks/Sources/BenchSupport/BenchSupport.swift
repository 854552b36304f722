import Foundation

/// Prints `message` prefixed with the program's name to standard error and exits with status 2.
public func fail(_ message: String) -> Never {
    let program = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "bench"
    FileHandle.standardError.write(Data("\(program): \(message)\n".utf8))
    exit(2)
}

/// The value after `name` in `arguments`, or `nil` when `name` is absent or last.
public func option(_ name: String, in arguments: [String] = CommandLine.arguments) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// The median of `values` (the mean of the middle two for an even count); `values` must not be empty.
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
