import Dispatch
import Foundation
import KingfisherCShims

extension JPEGCodec {
    /// Rows libjpeg decodes before the decoded ones are handed to the colour conversion.
    static let colorStripRows: Int32 = 64

    /// Reads every scanline of `decoder` into `target` (`height` rows of `rowBytes`) while a second
    /// thread converts the rows already read with `conversion`, so that a large photo's colour
    /// conversion mostly overlaps its decoding instead of following it.
    ///
    /// Every strip is converted, and the worker finished, before this returns or throws: the
    /// caller's buffer is never touched after.
    static func readConverting(_ decoder: OpaquePointer, into target: UnsafeMutablePointer<UInt8>, rowBytes: Int,
                               width: Int, height: Int, conversion: ColorConversion) throws {
        let worker = DispatchQueue(label: "kingfisher.jpeg.color")
        let group = DispatchGroup()
        defer { group.wait() }
        // The address crosses into the worker as an integer; each strip is written by libjpeg before
        // it is queued and touched by the worker alone after.
        let address = UInt(bitPattern: target)
        var message = [CChar](repeating: 0, count: 256)
        var converted = 0
        while converted < height {
            let done = Int(kf_jpeg_decoder_read_rows(decoder, target, rowBytes, colorStripRows, &message, message.count))
            guard done > converted else {
                throw decodingError(done < 0 ? String(cMessage: message) : "libjpeg stopped after \(converted) rows")
            }
            let start = converted
            worker.async(group: group) {
                guard let strip = UnsafeMutableRawPointer(bitPattern: address + UInt(start * rowBytes)) else { return }
                conversion.apply(strip, pixelCount: (done - start) * width)
            }
            converted = done
        }
    }
}
