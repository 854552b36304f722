import CFuzzDriver
import Foundation

/// Starts libFuzzer from a target's `main.swift`.
///
/// SwiftPM links an executable's entry point as `main`, so libFuzzer's own `main` is never used;
/// each target's top-level code hands its test function to libFuzzer's driver instead.
public enum FuzzDriver {
    /// Runs libFuzzer over `body` with the process's arguments and exits with its status.
    public static func run(_ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, body))
    }
}
