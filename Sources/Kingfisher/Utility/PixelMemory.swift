import Foundation

/// Allocation of large pixel buffers.
enum PixelMemory {
    /// Buffers at least this large are advised to use transparent huge pages.
    static let hugePageThreshold = 4 << 20

    /// An array of `count` bytes filled by `initializer`, which must write every byte.
    ///
    /// Large buffers are given `MADV_HUGEPAGE` before the first write: a fresh 96 MB bitmap then
    /// costs a few dozen page faults instead of some 24,000, which is most of a full-size decode's
    /// overhead over the codec itself. Where the kernel declines, nothing changes.
    static func bytes(count: Int, _ initializer: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count >= hugePageThreshold, let base = buffer.baseAddress {
                adviseHugePages(UnsafeMutableRawPointer(base), count: count)
            }
            try initializer(buffer)
            initialized = count
        }
    }

    /// `count` uninitialised bytes aligned to 16, for scratch work such as inflated rows; large
    /// ones are given `MADV_HUGEPAGE` like bitmaps. The caller deallocates them.
    static func scratch(count: Int) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        if count >= hugePageThreshold, let base = buffer.baseAddress {
            adviseHugePages(base, count: count)
        }
        return buffer
    }

    private static func adviseHugePages(_ base: UnsafeMutableRawPointer, count: Int) {
        let page = 4096
        let start = (Int(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (Int(bitPattern: base) + count) & ~(page - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, MADV_HUGEPAGE)
    }
}
