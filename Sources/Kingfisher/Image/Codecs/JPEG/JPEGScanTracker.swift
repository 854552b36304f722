import Foundation

/// Follows a JPEG as its bytes arrive and tells where each completed scan ends.
///
/// A scan is complete when the marker after its entropy-coded data has arrived (the next SOS, a
/// table between scans, or EOI): the bytes before that marker, with an EOI appended, are a whole
/// JPEG that decodes to the image as far as it has come. Segments are walked by their lengths, so
/// an SOS marker inside an APPn payload (an EXIF thumbnail) is never mistaken for one; inside
/// entropy-coded data only an `FF` followed by neither `00` (a stuffed byte) nor `D0`–`D7` (a
/// restart) is a marker. Each byte is looked at once, whatever the size of the pieces fed in.
struct JPEGScanTracker: Sendable {
    /// Whether the frame header said progressive (SOF2, or SOF6/SOF10/SOF14); false until it arrives.
    private(set) var isProgressive = false
    /// Where each completed scan's data ends (the offset of the marker that followed it).
    private(set) var completedScanEnds: [Int] = []
    /// Whether EOI has arrived.
    private(set) var reachedEnd = false
    /// Whether the bytes are not a JPEG this tracker can follow (nothing more is reported).
    private(set) var isInvalid = false

    private enum Mode {
        /// Expecting `FF D8`.
        case start
        /// Between segments: expecting a marker.
        case marker
        /// Inside a segment's payload until `segmentEnd`; `isScanHeader` when it is an SOS header.
        case segment(end: Int, isScanHeader: Bool)
        /// Inside entropy-coded data.
        case entropy
    }

    private var mode = Mode.start
    private var position = 0
    private var inScan = false

    /// Reads what of `data` has not been read yet; `data` must start with the bytes fed before.
    mutating func update(with data: Data) {
        data.withUnsafeBytes { update(with: $0) }
    }

    private mutating func update(with bytes: UnsafeRawBufferPointer) {
        while position < bytes.count, !isInvalid, !reachedEnd {
            switch mode {
            case .start:
                guard bytes.count >= 2 else { return }
                guard bytes[0] == 0xFF, bytes[1] == 0xD8 else {
                    isInvalid = true
                    return
                }
                position = 2
                mode = .marker
            case .marker:
                guard position + 1 < bytes.count else { return }
                guard bytes[position] == 0xFF else {
                    isInvalid = true
                    return
                }
                let code = bytes[position + 1]
                if code == 0xFF {
                    position += 1 // fill byte
                    continue
                }
                if (0xD0...0xD7).contains(code) || code == 0x01 {
                    position += 2
                    continue
                }
                // Any other marker ends the scan whose data came before it.
                endScan(at: position)
                if code == 0xD9 {
                    reachedEnd = true
                    return
                }
                guard position + 3 < bytes.count else { return }
                let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
                guard length >= 2 else {
                    isInvalid = true
                    return
                }
                if [0xC2, 0xC6, 0xCA, 0xCE].contains(code) { isProgressive = true }
                mode = .segment(end: position + 2 + length, isScanHeader: code == 0xDA)
                position += 4
            case .segment(let end, let isScanHeader):
                guard end <= bytes.count else {
                    position = bytes.count
                    return
                }
                position = end
                if isScanHeader {
                    inScan = true
                    mode = .entropy
                } else {
                    mode = .marker
                }
            case .entropy:
                guard position + 1 < bytes.count else { return }
                if bytes[position] != 0xFF {
                    position += 1
                    continue
                }
                let next = bytes[position + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    position += 2
                } else if next == 0xFF {
                    position += 1
                } else {
                    mode = .marker
                }
            }
        }
    }

    /// Records that the scan under way, if any, ends where the marker at `offset` begins.
    private mutating func endScan(at offset: Int) {
        guard inScan else { return }
        inScan = false
        completedScanEnds.append(offset)
    }

    /// The first `end` bytes of `data` (a completed scan's end), closed with EOI.
    static func prefix(of data: Data, endingAt end: Int) -> Data {
        var prefix = Data(capacity: end + 2)
        prefix.append(data.prefix(end))
        prefix.append(contentsOf: [0xFF, 0xD9])
        return prefix
    }
}
