import Foundation

/// Walks a JPEG's marker segments up to the first scan, reading the frame header and the
/// orientation without touching entropy-coded data.
enum JPEGHeaderParser {
    struct Result {
        var width: Int
        var height: Int
        var components: Int
        var progressive: Bool
        var orientation: ImageOrientation
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws -> Result {
        var offset = 2
        var orientation = ImageOrientation.up
        var frame: Result?
        while offset < bytes.count {
            guard bytes[offset] == 0xFF else {
                throw JPEGCodec.decodingError("expected a marker at byte \(offset)")
            }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { break }
            let marker = bytes[offset]
            offset += 1
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xD9 { break }
            guard offset + 2 <= bytes.count else { break }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else { throw JPEGCodec.decodingError("marker segment 0x\(String(marker, radix: 16)) has length \(length)") }
            let bodyStart = offset + 2
            let bodyEnd = offset + length
            guard bodyEnd <= bytes.count else { break }
            let body = UnsafeRawBufferPointer(rebasing: bytes[bodyStart..<bodyEnd])
            switch marker {
            case 0xE1 where body.count > 6 && body.starts(with: Array("Exif\0\0".utf8)):
                orientation = EXIFOrientation.read(UnsafeRawBufferPointer(rebasing: body[6...]))
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard body.count >= 6 else { throw JPEGCodec.decodingError("frame header is too short") }
                frame = Result(
                    width: Int(body[3]) << 8 | Int(body[4]),
                    height: Int(body[1]) << 8 | Int(body[2]),
                    components: Int(body[5]),
                    progressive: marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE,
                    orientation: .up)
            case 0xDA:
                if var found = frame {
                    found.orientation = orientation
                    return found
                }
                throw JPEGCodec.decodingError("a scan starts before the frame header")
            default:
                break
            }
            offset = bodyEnd
        }
        if var found = frame {
            found.orientation = orientation
            return found
        }
        throw JPEGCodec.decodingError("data ends before the frame header")
    }
}
