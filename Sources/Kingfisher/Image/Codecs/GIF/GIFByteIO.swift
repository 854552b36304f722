import CGIFLib
import Foundation

/// The bytes giflib reads from: a borrowed buffer and a cursor, reached from giflib's C read callback
/// through `GifFileType.UserData`.
///
/// Used by one decode on one thread, inside the scope that keeps `bytes` valid.
final class GIFByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// When set, reading jumps from offset `at` to offset `to` (a resumed decode reads the header,
    /// then the records after the frames it already has).
    private var jump: (at: Int, to: Int)?
    /// Set once giflib asked for bytes past the end of the data: the file is truncated.
    private(set) var reachedEnd = false

    /// A reader of `bytes`; with `resumingAt`, the bytes from `headerLength` up to that offset are
    /// skipped.
    init(bytes: UnsafeRawBufferPointer, headerLength: Int = 0, resumingAt resume: Int? = nil) {
        self.bytes = bytes
        if let resume, resume > headerLength { jump = (headerLength, min(resume, bytes.count)) }
    }

    /// The offset in the data of the next byte to be read.
    var position: Int { offset }

    /// Copies up to `count` bytes into `destination`; returns how many were copied.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        var copied = 0
        while copied < max(count, 0) {
            if let pending = jump, offset >= pending.at {
                offset = pending.to
                jump = nil
            }
            let limit = jump?.at ?? bytes.count
            let piece = min(count - copied, limit - offset)
            guard piece > 0, let base = bytes.baseAddress else { break }
            UnsafeMutableRawPointer(destination + copied).copyMemory(from: base + offset, byteCount: piece)
            offset += piece
            copied += piece
        }
        if copied < count { reachedEnd = true }
        return copied
    }
}

/// giflib's `InputFunc`: reads from the ``GIFByteReader`` in `UserData`.
func gifReadCallback(_ file: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?, _ count: Int32) -> Int32 {
    guard let file, let buffer, count > 0, let userData = file.pointee.UserData else { return 0 }
    let reader = Unmanaged<GIFByteReader>.fromOpaque(userData).takeUnretainedValue()
    return Int32(truncatingIfNeeded: reader.read(into: buffer, count: Int(count)))
}

/// The growing buffer giflib's encoder writes to, reached from giflib's C write callback through
/// `GifFileType.UserData`. Used by one encode on one thread.
final class GIFByteWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    func write(_ source: UnsafePointer<UInt8>, count: Int) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: source, count: count))
    }
}

/// giflib's `OutputFunc`: appends to the ``GIFByteWriter`` in `UserData`.
func gifWriteCallback(_ file: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafePointer<GifByteType>?, _ count: Int32) -> Int32 {
    guard let file, let buffer, count > 0, let userData = file.pointee.UserData else { return 0 }
    let writer = Unmanaged<GIFByteWriter>.fromOpaque(userData).takeUnretainedValue()
    writer.write(buffer, count: Int(count))
    return count
}

/// giflib's description of an error code, e.g. "Image is defective, decoding aborted".
func gifErrorMessage(_ code: Int32) -> String {
    // A few failures set no code at all (a missing LZW code size byte, for one).
    guard code != 0 else { return "giflib gave no reason" }
    guard let message = GifErrorString(code) else { return "giflib error \(code)" }
    return String(cString: message)
}
