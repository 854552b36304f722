import Foundation

/// Reads the orientation tag (0x0112) from the TIFF structure inside a JPEG's APP1 "Exif" segment.
///
/// Only IFD0 is read; every offset is bounds-checked, so a damaged segment gives `.up`, never a trap.
enum EXIFOrientation {
    /// The orientation in `tiff` (the APP1 payload after "Exif\0\0"), `.up` if absent or unreadable.
    static func read(_ tiff: UnsafeRawBufferPointer) -> ImageOrientation {
        guard tiff.count >= 8 else { return .up }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return .up
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2),
                  let high = u16(littleEndian ? offset + 2 : offset) else { return nil }
            return low | high << 16
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return .up }
        for entry in 0..<min(count, 512) {
            let base = ifd + 2 + entry * 12
            guard let tag = u16(base) else { return .up }
            if tag == 0x0112 {
                // SHORT, count 1: the value sits in the first two bytes of the value field.
                guard let type = u16(base + 2), type == 3, let value = u16(base + 8) else { return .up }
                return ImageOrientation(rawValue: value) ?? .up
            }
        }
        return .up
    }
}
