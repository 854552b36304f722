import CGIFLib
import Foundation

/// Decodes a GIF with giflib's record-level API (never `DGifSlurp`), so each limit is checked
/// before the memory it guards is taken, and composites the frames on a ``GIFCanvas``.
///
/// Used for one decode, on one thread, while the data's bytes stay valid.
struct GIFDecoder {
    private let file: UnsafeMutablePointer<GifFileType>
    private let reader: GIFByteReader
    private let options: ImageCreatingOptions
    private var canvas: GIFCanvas
    /// Frames decoded so far in this file, counting those a resumed decode skipped.
    private var decodedCount = 0
    /// The Graphics Control Extension waiting for the next image; it applies to that image only.
    private var control: GraphicsControlBlock?
    /// The first loop count found in a NETSCAPE2.0 or ANIMEXTS1.0 extension.
    private var loopCount: Int?

    /// Where a decode stopped after a frame, to go on from there without compositing the frames
    /// before it again: the canvas as that frame left it, and the offset of the next record.
    struct ResumePoint: Sendable {
        /// The index of the next frame.
        let nextIndex: Int
        /// The offset of the record after the last frame decoded.
        let offset: Int
        let canvas: GIFCanvas
    }

    /// Frame `index` of `data`, composited from `resume` when it is before the frame (else from the
    /// start), with the point to resume from after it.
    static func frame(at index: Int, of data: Data, from resume: ResumePoint?, options: ImageCreatingOptions) throws -> (ImageFrame, ResumePoint) {
        let start = resume.flatMap { $0.nextIndex <= index ? $0 : nil }
        return try data.withUnsafeBytes { bytes in
            let reader = GIFByteReader(bytes: bytes, headerLength: GIFCodec.headerLength(bytes), resumingAt: start?.offset)
            return try withExtendedLifetime(reader) {
                var openError: Int32 = 0
                guard let file = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), gifReadCallback, &openError) else {
                    throw GIFCodec.decodingError("cannot read the header: \(gifErrorMessage(openError))")
                }
                defer {
                    var closeError: Int32 = 0
                    DGifCloseFile(file, &closeError)
                }
                var decoder = try GIFDecoder(file: file, reader: reader, options: options)
                if let start {
                    decoder.canvas = start.canvas
                    decoder.decodedCount = start.nextIndex
                }
                while true {
                    let number = decoder.decodedCount + 1
                    guard let frame = try decoder.nextFrame() else {
                        throw GIFCodec.decodingError("frame \(number) could not be read: the data ends or is damaged before it")
                    }
                    if number - 1 == index {
                        return (frame, ResumePoint(nextIndex: index + 1, offset: reader.position, canvas: decoder.canvas))
                    }
                }
            }
        }
    }

    /// Decodes `data` as ``GIFCodec`` describes.
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        try data.withUnsafeBytes { bytes in
            let reader = GIFByteReader(bytes: bytes)
            return try withExtendedLifetime(reader) {
                var openError: Int32 = 0
                guard let file = DGifOpen(Unmanaged.passUnretained(reader).toOpaque(), gifReadCallback, &openError) else {
                    throw GIFCodec.decodingError("cannot read the header: \(gifErrorMessage(openError))")
                }
                defer {
                    var closeError: Int32 = 0
                    DGifCloseFile(file, &closeError)
                }
                var decoder = try GIFDecoder(file: file, reader: reader, options: options)
                return try decoder.run()
            }
        }
    }

    private init(file: UnsafeMutablePointer<GifFileType>, reader: GIFByteReader, options: ImageCreatingOptions) throws {
        let width = Int(file.pointee.SWidth)
        let height = Int(file.pointee.SHeight)
        try options.limits.checkFrame(width: width, height: height, format: .GIF)
        self.file = file
        self.reader = reader
        self.options = options
        canvas = GIFCanvas(width: width, height: height)
    }

    private mutating func run() throws -> KFCrossPlatformImage {
        var frames: [ImageFrame] = []
        while let frame = try nextFrame() {
            frames.append(frame)
            if options.onlyFirstFrame { break }
        }
        guard let first = frames.first else {
            throw GIFCodec.decodingError("the data holds no image")
        }
        if frames.count == 1 {
            return KFCrossPlatformImage(frame: first, scale: options.scale)
        }
        return KFCrossPlatformImage(validated: frames, loopCount: loopCount ?? GIFCodec.loopCountWithoutExtension,
                                    scale: options.scale, isOpaque: frames.allSatisfy(\.allOpaque))
    }

    /// The next composited frame, or `nil` at the end of the image (the trailer, the end of the
    /// data after a complete frame, or bytes that start no block).
    private mutating func nextFrame() throws -> ImageFrame? {
        while true {
            var recordType = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &recordType) == GIF_OK else {
                // Bytes that start no block after a frame end the image, as in browsers.
                if file.pointee.Error == D_GIF_ERR_WRONG_RECORD, !reader.reachedEnd, decodedCount > 0 { return nil }
                try failure("reading the next block")
                return nil
            }
            switch recordType {
            case IMAGE_DESC_RECORD_TYPE:
                guard let frame = try readImage() else { return nil }
                decodedCount += 1
                return frame
            case EXTENSION_RECORD_TYPE:
                guard try readExtension() else { return nil }
            default:
                return nil
            }
        }
    }

    /// Throws for a giflib failure, unless the data ended after at least one complete frame: then
    /// returns, and the caller stops with the frames it has.
    private func failure(_ stage: String) throws {
        let message = gifErrorMessage(file.pointee.Error)
        if reader.reachedEnd {
            if decodedCount > 0 { return }
            throw GIFCodec.decodingError("the data ends before the first frame is complete (\(stage): \(message))")
        }
        throw GIFCodec.decodingError("\(stage): \(message)")
    }

    /// Reads one image descriptor and its pixels, and returns the composited frame; `nil` when the
    /// data ended and decoding should stop with the frames so far.
    private mutating func readImage() throws -> ImageFrame? {
        let number = decodedCount + 1
        guard DGifGetImageDesc(file) == GIF_OK else {
            try failure("frame \(number)'s descriptor")
            return nil
        }
        let descriptor = file.pointee.Image
        let frameControl = control
        control = nil
        let width = Int(descriptor.Width)
        let height = Int(descriptor.Height)
        // The descriptor alone decides how much LZW data is decoded, whatever the screen size.
        if width > 0, height > 0 {
            try options.limits.checkFrame(width: width, height: height, format: .GIF)
        }
        if number >= 2 {
            try options.limits.checkAnimation(frameCount: number, width: canvas.width, height: canvas.height, format: .GIF)
        }
        guard let colorMap = descriptor.ColorMap ?? file.pointee.SColorMap else {
            throw GIFCodec.decodingError("frame \(number) has neither a local nor a global colour table")
        }
        let colorCount = colorMap.pointee.Colors == nil ? 0 : min(max(Int(colorMap.pointee.ColorCount), 0), 256)
        let colors = UnsafeBufferPointer(start: colorMap.pointee.Colors, count: colorCount)
        let transparent = frameControl.map { Int($0.TransparentColor) }
        let palette = GIFCanvas.palette(colors: colors, transparentIndex: transparent)

        let left = Int(descriptor.Left)
        let top = Int(descriptor.Top)
        let rect = GIFFrameRect(left: left, top: top, width: width, height: height,
                                screenWidth: canvas.width, screenHeight: canvas.height)
        canvas.beginFrame(rect: rect, disposal: frameControl.map { Int($0.DisposalMode) } ?? 0)

        if width == 0 || height == 0 {
            guard try skipPixelData(frame: number) else { return nil }
        } else {
            guard try readRows(frame: number, width: width, height: height, left: left, top: top,
                               interlaced: descriptor.Interlace, palette: palette) else { return nil }
        }
        let delay = frameControl.map { Int($0.DelayTime) }
        return canvas.snapshot(duration: GIFCodec.frameDuration(centiseconds: delay))
    }

    /// Decodes every row of a frame (all of them, to keep giflib's stream in step) and draws the
    /// part of each that lies on the screen.
    private mutating func readRows(frame number: Int, width: Int, height: Int, left: Int, top: Int,
                                   interlaced: Bool, palette: [UInt32]) throws -> Bool {
        let rowOrder = interlaced ? Self.interlacedRowOrder(height: height) : nil
        var row = [UInt8](repeating: 0, count: width)
        for line in 0..<height {
            let status = row.withUnsafeMutableBufferPointer { buffer in
                DGifGetLine(file, buffer.baseAddress, Int32(width))
            }
            guard status == GIF_OK else {
                try failure("frame \(number)'s pixel data, row \(line + 1) of \(height)")
                return false
            }
            let y = top + (rowOrder?[line] ?? line)
            guard y < canvas.height else { continue }
            row.withUnsafeBufferPointer { indices in
                palette.withUnsafeBufferPointer { colors in
                    canvas.drawRow(indices, left: left, y: y, palette: colors)
                }
            }
        }
        return true
    }

    /// Steps over the compressed blocks of a frame with no pixels, without decompressing them.
    private func skipPixelData(frame number: Int) throws -> Bool {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(file, &codeSize, &block) == GIF_OK else {
            try failure("frame \(number)'s pixel data")
            return false
        }
        while block != nil {
            guard DGifGetCodeNext(file, &block) == GIF_OK else {
                try failure("frame \(number)'s pixel data")
                return false
            }
        }
        return true
    }

    /// Reads one extension: a Graphics Control Extension becomes the next frame's `control`, a
    /// looping application extension gives the loop count, anything else is stepped over.
    private mutating func readExtension() throws -> Bool {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(file, &code, &block) == GIF_OK else {
            try failure("an extension block")
            return false
        }
        var isFirstBlock = true
        var isLooping = false
        while let current = block {
            // giflib hands over each sub-block with its length byte first.
            let body = UnsafeBufferPointer(start: current + 1, count: Int(current[0]))
            if code == GRAPHICS_EXT_FUNC_CODE, isFirstBlock {
                // Some encoders write a longer block; its first four bytes still mean the same.
                var parsed = GraphicsControlBlock()
                if body.count >= 4, DGifExtensionToGCB(4, body.baseAddress, &parsed) == GIF_OK {
                    control = parsed
                }
            } else if code == APPLICATION_EXT_FUNC_CODE {
                if isFirstBlock {
                    isLooping = GIFCodec.isLoopingExtension(body)
                } else if isLooping, loopCount == nil, let count = GIFCodec.loopCount(fromSubBlock: body) {
                    loopCount = count
                }
            }
            isFirstBlock = false
            guard DGifGetExtensionNext(file, &block) == GIF_OK else {
                try failure("an extension block")
                return false
            }
        }
        return true
    }

    /// For each row in the order an interlaced image stores them, the row it belongs on: every 8th
    /// row from 0, every 8th from 4, every 4th from 2, then every 2nd from 1.
    static func interlacedRowOrder(height: Int) -> [Int] {
        var order: [Int] = []
        order.reserveCapacity(height)
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            order.append(contentsOf: stride(from: start, to: height, by: step))
        }
        return order
    }
}
