import Foundation

/// The bytes libFuzzer hands a target, as `Data`.
public enum FuzzInput {
    /// Copies `size` bytes at `pointer` (which may be null when `size` is 0).
    public static func data(_ pointer: UnsafePointer<UInt8>?, _ size: Int) -> Data {
        guard let pointer, size > 0 else { return Data() }
        return Data(bytes: pointer, count: size)
    }
}
