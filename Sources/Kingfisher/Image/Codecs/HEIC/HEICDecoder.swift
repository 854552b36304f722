import CLibHEIF
import Foundation

// The primary image of a HEIF file (or a thumbnail standing in for it), decoded by libheif.
extension HEICCodec {
    /// Decodes the primary image of `data` upright, in sRGB, with premultiplied alpha.
    static func decodePrimary(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        // The probe's size is checked first, so an oversized image is refused before libheif
        // parses anything; libheif's own size checks then run as well. A file the probe cannot read
        // is refused too: libheif would trust parts of it the probe checks (a grid's own size
        // against its 'ispe', for one), and allocate whatever they say.
        let header = try probe(data)
        try options.limits.checkFrame(width: header.pixelWidth, height: header.pixelHeight, format: format)
        return try withPrimaryImage(of: data) { library, primary, layout in
            try checkLimits(primary, library: library, options: options)
            let thumbnail = HEICThumbnailChoice.pick(for: primary, minimum: options.minimumPixelSize,
                                                     layout: layout, library: library)
            defer { library.handleRelease(thumbnail) }
            // heif-enc 1.15 gives a thumbnail no 'colr' of its own: it then shows the primary's colours.
            let profile = thumbnail.flatMap { HEICColorProfile.read($0, library: library) }
                ?? HEICColorProfile.read(primary, library: library)
            return try decode(thumbnail ?? primary, profile: profile, library: library, options: options)
        }
    }

    /// The colour profile the primary image of `data` declares (see ``HEICColorProfile``).
    static func primaryColorProfile(_ data: Data) throws -> EmbeddedColorProfile? {
        try withPrimaryImage(of: data) { library, primary, _ in HEICColorProfile.read(primary, library: library) }
    }

    /// Runs `body` with libheif's handle of the primary image of `data` and the file's boxes as
    /// the probe reads them (`nil` when it cannot), releasing both after.
    private static func withPrimaryImage<T>(
        of data: Data, _ body: (HEIFLibrary, HEIFLibrary.Handle, ISOBMFFLayout?) throws -> T
    ) throws -> T {
        let library: HEIFLibrary
        switch HEIFLibrary.shared {
        case .success(let loaded): library = loaded
        case .failure(let error): throw unavailableLibraryError(error)
        }
        return try data.withUnsafeBytes { bytes in
            let layout = try? ISOBMFFLayout(ISOBMFFReader(bytes))
            guard let context = library.contextAlloc() else {
                throw decodingError("libheif could not allocate a decoding context")
            }
            defer { library.contextFree(context) }
            // The library's default thread count is kept, as heif-convert keeps it.
            let read = library.readFromMemoryWithoutCopy(context, bytes.baseAddress, bytes.count, nil)
            guard read.succeeded else {
                throw decodingError(sequenceExplanation(layout) ?? "libheif could not read the file: \(read.text)")
            }
            var primary: HEIFLibrary.Handle?
            let found = library.primaryImageHandle(context, &primary)
            defer { library.handleRelease(primary) }
            guard found.succeeded, let primary else {
                throw decodingError(sequenceExplanation(layout) ?? "the file has no primary image: \(found.text)")
            }
            return try body(library, primary, layout)
        }
    }

    /// Throws unless the handle's upright size, and the coded size libheif allocates for it, are
    /// within `options.limits`.
    private static func checkLimits(_ handle: HEIFLibrary.Handle, library: HEIFLibrary,
                                    options: ImageCreatingOptions) throws {
        try options.limits.checkFrame(width: Int(library.handleWidth(handle)),
                                      height: Int(library.handleHeight(handle)), format: format)
        let codedWidth = Int(library.handleISPEWidth(handle))
        let codedHeight = Int(library.handleISPEHeight(handle))
        if codedWidth > 0, codedHeight > 0 {
            try options.limits.checkFrame(width: codedWidth, height: codedHeight, format: format)
        }
    }

    /// Why a file libheif cannot open is a sequence it cannot read, or `nil` when it is not one.
    private static func sequenceExplanation(_ layout: ISOBMFFLayout?) -> String? {
        guard let layout, layout.track != nil, layout.meta?.primaryItemID == nil else { return nil }
        return "this HEIF image sequence has no still image item, and libheif 1.15 cannot read sequence tracks"
    }

    /// Decodes `handle` with its rotation, mirroring and crop applied by libheif, as 8-bit RGBA,
    /// converted from `profile` to sRGB.
    ///
    /// libheif applies the item's `irot`, `imir` and `clap` here. HEIF says these properties, not
    /// an EXIF orientation tag, place the image, and iPhones write both; the EXIF tag is never
    /// read, so the picture is turned exactly once.
    private static func decode(_ handle: HEIFLibrary.Handle, profile: EmbeddedColorProfile?, library: HEIFLibrary,
                               options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        guard let decoding = library.decodingOptionsAlloc() else {
            throw decodingError("libheif could not allocate decoding options")
        }
        defer { library.decodingOptionsFree(decoding) }
        decoding.pointee.ignore_transformations = 0
        if decoding.pointee.version >= 2 { decoding.pointee.convert_hdr_to_8bit = 1 }

        var decoded: HEIFLibrary.Image?
        let result = library.decodeImage(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, decoding)
        defer { library.imageRelease(decoded) }
        guard result.succeeded, let decoded else {
            throw decodingError("libheif could not decode the image: \(result.text)")
        }
        let hasAlpha = library.handleHasAlpha(handle) != 0
        let premultiplied = hasAlpha && library.handleIsPremultipliedAlpha(handle) != 0
        let frame = try HEICPixels.frame(of: decoded, library: library, options: options) { pixels, width, height in
            if premultiplied {
                // Stored premultiplied: only a colour conversion, which needs straight values, undoes it.
                guard ColorManagement.needsConversion(profile, options: options) else { return }
                PixelConversion.unpremultiply(pixels)
            }
            try ColorManagement.convertToSRGB(pixels, width: width, height: height, from: profile, options: options)
            // Without an alpha plane libheif writes 255 to every alpha byte: there is nothing to multiply.
            if hasAlpha { PixelConversion.premultiply(pixels) }
        }
        return KFCrossPlatformImage(validated: [frame], loopCount: 0, scale: options.scale,
                                    isOpaque: !hasAlpha || frame.allOpaque)
    }
}
