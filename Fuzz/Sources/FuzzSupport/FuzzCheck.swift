import Foundation

/// The harness's own assertion: a broken promise aborts the run so libFuzzer saves the input.
public enum FuzzCheck {
    /// Aborts with `message` on standard error unless `condition` holds.
    public static func that(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
        abort()
    }
}
