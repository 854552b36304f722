import CGIFLib
import Foundation

/// Writes a ``KFCrossPlatformImage`` as GIF89a with giflib's record-level encoder.
///
/// Every frame is quantized by ``ColorQuantizer`` and written whole: the first frame's palette is
/// the global colour table, later frames carry local ones. An animation gets a NETSCAPE2.0 loop
/// extension with the image's `loopCount` and, per frame, a Graphics Control Extension with the
/// delay in centiseconds (rounded, at least 2) and a disposal that clears the frame to transparent
/// whenever the next frame has transparent pixels, so each frame shows exactly as it was given.
enum GIFEncoder {
    /// The smallest delay written: many viewers slow down anything shorter.
    static let minimumDelayCentiseconds = 2

    static func encode(_ image: KFCrossPlatformImage) throws -> Data {
        let width = image.pixelWidth
        let height = image.pixelHeight
        guard width <= 0xFFFF, height <= 0xFFFF else {
            throw GIFCodec.encodingError("a GIF is at most 65535×65535 pixels; this image is \(width)×\(height)")
        }
        let frames = image.frames.map(ColorQuantizer.quantize)
        let writer = GIFByteWriter(reservingCapacity: min(width * height * frames.count / 2 + 1024, 1 << 22))
        try withExtendedLifetime(writer) {
            var openError: Int32 = 0
            guard let file = EGifOpen(Unmanaged.passUnretained(writer).toOpaque(), gifWriteCallback, &openError) else {
                throw GIFCodec.encodingError("giflib cannot start: \(gifErrorMessage(openError))")
            }
            do {
                try write(frames, of: image, to: file)
            } catch {
                var closeError: Int32 = 0
                EGifCloseFile(file, &closeError)
                throw error
            }
            var closeError: Int32 = 0
            guard EGifCloseFile(file, &closeError) == GIF_OK else {
                throw GIFCodec.encodingError("finishing the file: \(gifErrorMessage(closeError))")
            }
        }
        return Data(writer.bytes)
    }

    private static func write(_ frames: [IndexedFrame], of image: KFCrossPlatformImage, to file: UnsafeMutablePointer<GifFileType>) throws {
        guard let first = frames.first else {
            throw GIFCodec.encodingError("the image has no frame")
        }
        let width = Int32(image.pixelWidth)
        let height = Int32(image.pixelHeight)
        let animated = frames.count > 1
        EGifSetGifVersion(file, true)
        try withColorMap(of: first) { map in
            try check(EGifPutScreenDesc(file, width, height, 8, 0, map), "writing the screen descriptor", file)
        }
        if animated {
            try writeLoopExtension(loopCount: image.loopCount, to: file)
        }
        for (index, frame) in frames.enumerated() {
            if animated || frame.transparentIndex != nil {
                let nextHasTransparency = frames[(index + 1) % frames.count].transparentIndex != nil
                var control = GraphicsControlBlock()
                control.DisposalMode = animated ? (nextHasTransparency ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT) : DISPOSAL_UNSPECIFIED
                control.UserInputFlag = false
                control.DelayTime = animated ? Int32(delayCentiseconds(image.frames[index].duration)) : 0
                control.TransparentColor = frame.transparentIndex.map { Int32($0) } ?? NO_TRANSPARENT_COLOR
                var bytes = [GifByteType](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&control, &bytes)
                try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(length), bytes), "writing frame \(index + 1)'s delay", file)
            }
            if index == 0 {
                try check(EGifPutImageDesc(file, 0, 0, width, height, false, nil), "writing frame 1's descriptor", file)
            } else {
                try withColorMap(of: frame) { map in
                    try check(EGifPutImageDesc(file, 0, 0, width, height, false, map), "writing frame \(index + 1)'s descriptor", file)
                }
            }
            var indices = frame.indices
            let rowLength = Int(width)
            try indices.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                for row in 0..<Int(height) {
                    try check(EGifPutLine(file, base + row * rowLength, width), "writing frame \(index + 1)'s pixels", file)
                }
            }
        }
    }

    /// The NETSCAPE2.0 application extension: sub-block 1 holds the loop count (0 = forever).
    private static func writeLoopExtension(loopCount: Int, to file: UnsafeMutablePointer<GifFileType>) throws {
        let count = min(max(loopCount, 0), 0xFFFF)
        let loop: [UInt8] = [1, UInt8(count & 0xFF), UInt8(count >> 8)]
        try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE), "writing the loop count", file)
        try check(EGifPutExtensionBlock(file, Int32(GIFCodec.netscapeIdentifier.count), GIFCodec.netscapeIdentifier), "writing the loop count", file)
        try check(EGifPutExtensionBlock(file, Int32(loop.count), loop), "writing the loop count", file)
        try check(EGifPutExtensionTrailer(file), "writing the loop count", file)
    }

    /// Throws giflib's message for `file` unless `status` is `GIF_OK`.
    private static func check(_ status: Int32, _ stage: @autoclosure () -> String, _ file: UnsafeMutablePointer<GifFileType>) throws {
        guard status == GIF_OK else {
            throw GIFCodec.encodingError("\(stage()): \(gifErrorMessage(file.pointee.Error))")
        }
    }

    /// A frame's duration in centiseconds as written: rounded, between 2 and 65535.
    static func delayCentiseconds(_ duration: TimeInterval) -> Int {
        guard duration.isFinite else { return minimumDelayCentiseconds }
        return Int(min(max((duration * 100).rounded(), Double(minimumDelayCentiseconds)), 65535))
    }

    /// Calls `body` with a colour map of `frame`'s palette padded to a power of two (at least 2),
    /// as GIF requires. giflib copies the map, so it only has to live for the call.
    private static func withColorMap(of frame: IndexedFrame, _ body: (UnsafePointer<ColorMapObject>) throws -> Void) throws {
        var bits = 1
        while 1 << bits < frame.colorCount { bits += 1 }
        var colors = [GifColorType](repeating: GifColorType(), count: 1 << bits)
        for index in 0..<min(frame.colorCount, colors.count) {
            colors[index] = GifColorType(Red: frame.palette[index * 3], Green: frame.palette[index * 3 + 1], Blue: frame.palette[index * 3 + 2])
        }
        try colors.withUnsafeMutableBufferPointer { buffer in
            var map = ColorMapObject(ColorCount: Int32(buffer.count), BitsPerPixel: Int32(bits), SortFlag: false, Colors: buffer.baseAddress)
            try withUnsafePointer(to: &map) { try body($0) }
        }
    }
}
