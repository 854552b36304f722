import Foundation

/// JPEG XL: recognised and probed, not decoded or encoded yet.
///
/// The probe reads the codestream's `SizeHeader` for the size and the start of its
/// `ImageMetadata` for the orientation (reported as stored, with the orientation separate, as
/// JPEG's EXIF orientation is), the alpha channel and the loop count. In the container form the
/// codestream comes from the `jxlc` box or the `jxlp` boxes. The frame count is always 1: counting
/// an animation's frames needs every frame header, so an animation reports 1 frame (its loop
/// count is still read).
enum JXLCodec: ProbeOnlyCodec {
    static let format = ImageFormat.JXL

    /// The bare codestream's signature.
    static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    /// The container's first box, `JXL `.
    static let containerSignature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    /// How much of the codestream the probe looks at; the headers it reads fit easily.
    static let headerBytes = 4096

    static func probe(_ data: Data) throws -> ImageHeader {
        do {
            let codestream = try data.withUnsafeBytes { try codestreamStart($0) }
            let parsed = try JXLCodestreamHeader(codestream: codestream)
            return ImageHeader(format: format, pixelWidth: parsed.width, pixelHeight: parsed.height,
                               loopCount: parsed.isAnimated ? parsed.loopCount : 0,
                               orientation: parsed.orientation, hasAlpha: parsed.hasAlpha)
        } catch let error as ISOBMFFParseError {
            throw decodingError(error.description)
        }
    }

    /// The first bytes (up to ``headerBytes``) of the codestream: the data itself when bare, else
    /// the `jxlc` box's payload or the `jxlp` boxes' payloads joined in file order.
    static func codestreamStart(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        if bytes.starts(with: codestreamSignature) { return Array(bytes.prefix(headerBytes)) }
        guard bytes.starts(with: containerSignature) else {
            throw ISOBMFFParseError(description: "the data is neither a JPEG XL codestream nor a JPEG XL container")
        }
        let reader = ISOBMFFReader(bytes)
        var codestream: [UInt8] = []
        var offset = 0
        while bytes.count - offset >= 8, codestream.count < headerBytes {
            let box: ISOBMFFBox
            do {
                box = try reader.box(at: offset, before: bytes.count)
            } catch {
                // A truncated last box still gives what it holds when it is the codestream.
                guard let type = try? reader.fourCC(offset + 4, before: bytes.count),
                      type == FourCC("jxlc") || type == FourCC("jxlp") else { throw error }
                let header = (try? reader.u32(offset, before: bytes.count)) == 1 ? 16 : 8
                let skip = header + (type == FourCC("jxlp") ? 4 : 0)
                if offset + skip < bytes.count { codestream += bytes[(offset + skip)...].prefix(headerBytes) }
                break
            }
            if box.type == FourCC("jxlc") {
                codestream += bytes[box.payload].prefix(headerBytes)
                break
            }
            if box.type == FourCC("jxlp"), box.payload.count >= 4 {
                codestream += bytes[(box.payloadStart + 4)..<box.end].prefix(headerBytes - codestream.count)
            }
            offset = box.end
        }
        guard !codestream.isEmpty else {
            throw ISOBMFFParseError(description: "the container has no 'jxlc' or 'jxlp' codestream box")
        }
        return codestream
    }
}
