import Foundation

extension ImageFormat {
    /// A JPEG marker: the two bytes, `0xFF` then a code, that start a segment of a JPEG file.
    ///
    /// ``KingfisherWrapper/contains(jpeg:)`` looks for one, for example `.SOF2` to tell a
    /// progressive JPEG from a baseline one (`.SOF0`).
    public enum JPEGMarker: Sendable, Hashable {
        /// Start of frame, baseline DCT (`FF C0`).
        case SOF0
        /// Start of frame, progressive DCT (`FF C2`).
        case SOF2
        /// Huffman tables (`FF C4`).
        case DHT
        /// Quantization tables (`FF DB`).
        case DQT
        /// Restart interval (`FF DD`).
        case DRI
        /// Start of scan (`FF DA`).
        case SOS
        /// Restart marker `n`, 0 to 7 (`FF D0` to `FF D7`); no other `n` is a marker.
        case RSTn(UInt8)
        /// Application segment 0, where JFIF lives (`FF E0`).
        case APPn
        /// Comment (`FF FE`).
        case COM
        /// End of image (`FF D9`).
        case EOI

        /// The marker's code, the byte after `0xFF`; `nil` for a restart number over 7.
        var code: UInt8? {
            switch self {
            case .SOF0: 0xC0
            case .SOF2: 0xC2
            case .DHT: 0xC4
            case .DQT: 0xDB
            case .DRI: 0xDD
            case .SOS: 0xDA
            case .RSTn(let n): n <= 7 ? 0xD0 + n : nil
            case .APPn: 0xE0
            case .COM: 0xFE
            case .EOI: 0xD9
            }
        }
    }
}

extension KingfisherWrapper where Base == Data {
    /// Whether the data is a JPEG (by its first bytes) in which the two bytes of `marker` occur
    /// anywhere, as Kingfisher checks it: a plain byte search, not a walk of the segments.
    public func contains(jpeg marker: ImageFormat.JPEGMarker) -> Bool {
        guard imageFormat == .JPEG, let code = marker.code else { return false }
        return base.withUnsafeBytes { bytes -> Bool in
            guard bytes.count >= 2 else { return false }
            for index in 0..<(bytes.count - 1) where bytes[index] == 0xFF && bytes[index + 1] == code {
                return true
            }
            return false
        }
    }
}
