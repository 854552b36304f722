import Foundation

/// How an APNG frame's region is left once the frame has been shown (the fcTL `dispose_op`).
enum APNGDisposeOp: UInt8, Sendable {
    /// Leave the canvas as it is.
    case none = 0
    /// Clear the frame's region to transparent black.
    case background = 1
    /// Put the region back as it was before the frame was drawn.
    case previous = 2
}

/// How an APNG frame is drawn onto the canvas (the fcTL `blend_op`).
enum APNGBlendOp: UInt8, Sendable {
    /// Replace the region, alpha included.
    case source = 0
    /// Composite the frame over the region.
    case over = 1
}

/// One frame of an APNG: its fcTL and where its compressed data lies in the file.
struct APNGFrameInfo: Sendable {
    let width: Int
    let height: Int
    let x: Int
    let y: Int
    let dispose: APNGDisposeOp
    let blend: APNGBlendOp
    /// Seconds, after the same short-delay rule as GIF.
    let duration: TimeInterval
    /// Byte ranges of the zlib stream, in order: the payloads of the IDAT chunks, or of the fdAT
    /// chunks without their sequence numbers.
    var dataRanges: [Range<Int>] = []
}

/// The animation an `acTL` chunk before the first IDAT announces.
struct APNGAnimation: Sendable {
    /// The `num_plays` field: 0 means forever.
    let playCount: Int
    /// The frames, in the order they play.
    let frames: [APNGFrameInfo]
    /// True when the IDAT image is the first frame (an fcTL comes before it); otherwise it is only
    /// the image shown by decoders without APNG support.
    let defaultImageIsFirstFrame: Bool
}

/// What a walk over a PNG's chunks finds, without inflating anything: the IHDR, the chunks every
/// frame shares, the EXIF orientation and, for an APNG, its animation.
///
/// Nothing is refused here: libpng judges the still image. An APNG whose animation chunks are
/// broken (see ``animationProblem``) is read as its still default image, the IDAT, as the PNG
/// specification (third edition) asks of a decoder that meets an error before the animation starts.
struct PNGStructure: Sendable {
    let width: Int
    let height: Int
    /// The 13 bytes of IHDR.
    let header: [UInt8]
    /// Whole chunks (length, type, data, CRC) before the first IDAT that every frame's standalone
    /// stream repeats: PLTE, tRNS, gAMA, sRGB, iCCP and the like.
    let sharedChunks: [Range<Int>]
    /// From an `eXIf` chunk; `.up` without one.
    let orientation: ImageOrientation
    /// `nil` for a still PNG, and for an APNG whose animation is broken.
    let animation: APNGAnimation?
    /// Why an `acTL` was found but the animation was set aside for the IDAT image, if it was.
    let animationProblem: String?

    /// Walks the chunks of `data`.
    init(_ data: Data) {
        var scanner = PNGChunkScanner()
        data.withUnsafeBytes { scanner.scan($0) }
        width = scanner.width
        height = scanner.height
        header = scanner.header
        sharedChunks = scanner.shared
        orientation = scanner.orientation
        do {
            animation = try scanner.finishAnimation()
            animationProblem = nil
        } catch {
            animation = nil
            animationProblem = error.description
        }
    }

    /// The same structure read as a still image: no animation, `problem` saying why.
    private init(still structure: PNGStructure, problem: String) {
        width = structure.width
        height = structure.height
        header = structure.header
        sharedChunks = structure.sharedChunks
        orientation = structure.orientation
        animation = nil
        animationProblem = problem
    }

    /// This structure with its animation set aside because of `problem` (found while decoding a frame).
    func settingAsideAnimation(because problem: String) -> PNGStructure {
        PNGStructure(still: self, problem: problem)
    }
}

/// A broken APNG animation structure, found by the chunk walk.
struct APNGStructureError: Error, CustomStringConvertible {
    let description: String
}

/// The state of one walk over the chunks; see ``PNGStructure``.
private struct PNGChunkScanner {
    var width = 0
    var height = 0
    var header: [UInt8] = []
    var shared: [Range<Int>] = []
    var orientation = ImageOrientation.up
    var declaredFrames: Int?
    var playCount = 0
    var frames: [APNGFrameInfo] = []
    var sawIDAT = false
    var defaultIsFrame = false
    var nextSequence = 0
    var reachedEnd = false
    var problem: String?
    /// The first error in the animation chunks; after it they are skipped.
    var animationError: APNGStructureError?

    var isAnimated: Bool { declaredFrames != nil }

    mutating func scan(_ bytes: UnsafeRawBufferPointer) {
        var offset = 8
        var afterIDAT = false
        while offset < bytes.count {
            guard offset + 8 <= bytes.count else {
                problem = "the data ends inside a chunk header"
                return
            }
            let length = PNGChunkFormat.u32(bytes, offset)
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8)]), as: UTF8.self)
            let dataStart = offset + 8
            let (dataEnd, overflow) = dataStart.addingReportingOverflow(length)
            guard !overflow, dataEnd + 4 <= bytes.count else {
                problem = "the \(type) chunk runs past the end of the data"
                return
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataEnd])
            if offset == 8 {
                guard type == "IHDR", length == 13 else { return }
                header = Array(body)
                width = PNGChunkFormat.u32(body, 0)
                height = PNGChunkFormat.u32(body, 4)
            } else {
                switch type {
                case "IEND":
                    reachedEnd = true
                    return
                case "IDAT":
                    if !sawIDAT, let last = frames.last, isAnimated {
                        // An fcTL before the first IDAT makes the IDAT image frame 1.
                        defaultIsFrame = frames.count == 1 && last.dataRanges.isEmpty
                    }
                    sawIDAT = true
                    afterIDAT = true
                    if defaultIsFrame, frames.count == 1 { frames[0].dataRanges.append(dataStart..<dataEnd) }
                case "acTL", "fcTL", "fdAT":
                    guard animationError == nil else { break }
                    do {
                        try checkCRC(bytes, offset: offset, length: length, type: type)
                        try readAnimationChunk(type, body, afterIDAT: afterIDAT, dataStart: dataStart)
                    } catch {
                        animationError = error
                    }
                case "eXIf":
                    orientation = EXIFOrientation.read(Self.tiffPayload(body))
                default:
                    if !sawIDAT { shared.append(offset..<(dataEnd + 4)) }
                }
            }
            offset = dataEnd + 4
        }
    }

    /// Reads an `acTL`, `fcTL` or `fdAT` chunk whose CRC is sound.
    ///
    /// The first frame's fcTL may come before or after the acTL (both before the IDAT); frames
    /// seen before an acTL count only once one follows. An acTL after the IDAT is not an APNG's
    /// (the file is a still image), but a second acTL before it breaks the animation.
    private mutating func readAnimationChunk(_ type: String, _ body: UnsafeRawBufferPointer, afterIDAT: Bool,
                                             dataStart: Int) throws(APNGStructureError) {
        switch type {
        case "acTL":
            guard !sawIDAT else { return }
            guard declaredFrames == nil else { throw Self.malformed("a second acTL chunk comes before the IDAT") }
            guard body.count == 8 else { throw Self.malformed("the acTL chunk is \(body.count) bytes, not 8") }
            let count = PNGChunkFormat.u32(body, 0)
            guard count > 0 else { throw Self.malformed("the acTL chunk announces no frames") }
            declaredFrames = count
            playCount = PNGChunkFormat.u32(body, 4)
        case "fcTL":
            guard isAnimated || !sawIDAT else { return }
            try readFrameControl(body, beforeIDAT: !afterIDAT)
        default:
            guard isAnimated else { return }
            guard body.count >= 4 else { throw Self.malformed("an fdAT chunk is too short for its sequence number") }
            try checkSequence(PNGChunkFormat.u32(body, 0), chunk: "fdAT")
            guard afterIDAT, !frames.isEmpty, !(defaultIsFrame && frames.count == 1) else {
                throw Self.malformed("an fdAT chunk comes before its frame's fcTL")
            }
            frames[frames.count - 1].dataRanges.append((dataStart + 4)..<(dataStart + body.count))
        }
    }

    static func malformed(_ description: String) -> APNGStructureError {
        APNGStructureError(description: description)
    }

    /// The frames once the walk is over, checked against the acTL; `nil` for a still PNG.
    func finishAnimation() throws(APNGStructureError) -> APNGAnimation? {
        guard let declaredFrames else { return nil }
        if let animationError { throw animationError }
        if let problem, !reachedEnd {
            throw Self.malformed("the animation is truncated: \(problem)")
        }
        guard sawIDAT else { throw Self.malformed("the file has no IDAT chunk") }
        guard frames.count == declaredFrames else {
            throw Self.malformed("the acTL chunk announces \(declaredFrames) frames but \(frames.count) fcTL chunks follow")
        }
        if let empty = frames.firstIndex(where: { $0.dataRanges.isEmpty }) {
            throw Self.malformed("frame \(empty + 1) has no image data")
        }
        return APNGAnimation(playCount: playCount, frames: frames, defaultImageIsFirstFrame: defaultIsFrame)
    }

    private mutating func readFrameControl(_ body: UnsafeRawBufferPointer, beforeIDAT: Bool) throws(APNGStructureError) {
        guard body.count == 26 else { throw Self.malformed("an fcTL chunk is \(body.count) bytes, not 26") }
        try checkSequence(PNGChunkFormat.u32(body, 0), chunk: "fcTL")
        let number = frames.count + 1
        if let previous = frames.last, previous.dataRanges.isEmpty {
            throw Self.malformed("frame \(number - 1) has no image data before the next fcTL")
        }
        if beforeIDAT, !frames.isEmpty {
            throw Self.malformed("two fcTL chunks come before the IDAT")
        }
        let frameWidth = PNGChunkFormat.u32(body, 4), frameHeight = PNGChunkFormat.u32(body, 8)
        let x = PNGChunkFormat.u32(body, 12), y = PNGChunkFormat.u32(body, 16)
        guard frameWidth > 0, frameHeight > 0, x + frameWidth <= width, y + frameHeight <= height else {
            throw Self.malformed("frame \(number) (\(frameWidth)×\(frameHeight) at \(x),\(y)) lies outside the \(width)×\(height) canvas")
        }
        if beforeIDAT, x != 0 || y != 0 || frameWidth != width || frameHeight != height {
            throw Self.malformed("frame 1 is the IDAT image but its fcTL does not cover the whole canvas")
        }
        guard let dispose = APNGDisposeOp(rawValue: body[24]), let blend = APNGBlendOp(rawValue: body[25]) else {
            throw Self.malformed("frame \(number) has dispose op \(body[24]) and blend op \(body[25])")
        }
        let numerator = Int(body[20]) << 8 | Int(body[21])
        let denominator = Int(body[22]) << 8 | Int(body[23])
        // A frame that opens the animation has nothing to restore: PREVIOUS then means BACKGROUND.
        frames.append(APNGFrameInfo(width: frameWidth, height: frameHeight, x: x, y: y,
                                    dispose: frames.isEmpty && dispose == .previous ? .background : dispose,
                                    blend: blend,
                                    duration: APNGCodec.frameDuration(numerator: numerator, denominator: denominator)))
    }

    private mutating func checkSequence(_ sequence: Int, chunk: String) throws(APNGStructureError) {
        guard sequence == nextSequence else {
            throw Self.malformed("an \(chunk) chunk has sequence number \(sequence) where \(nextSequence) was due")
        }
        nextSequence += 1
    }

    private func checkCRC(_ bytes: UnsafeRawBufferPointer, offset: Int, length: Int, type: String) throws(APNGStructureError) {
        let covered = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8 + length)])
        guard PNGChunkFormat.checksum(covered) == UInt32(PNGChunkFormat.u32(bytes, offset + 8 + length)) else {
            throw Self.malformed("the \(type) chunk's CRC does not match its contents")
        }
    }

    /// An eXIf payload is a TIFF structure; some writers put JPEG's "Exif\0\0" before it.
    static func tiffPayload(_ body: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        body.starts(with: Array("Exif\0\0".utf8)) ? UnsafeRawBufferPointer(rebasing: body[6...]) : body
    }
}
