import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A C library opened on first use with `dlopen`, and its functions looked up by name.
///
/// The AVIF, HEIF, JPEG XL and colour-management libraries each pull in a tree of further
/// libraries (libavif alone maps five AV1 codecs and abseil). Linking them would make every program
/// that uses Kingfisher map and relocate all of them at start-up, whether or not it ever reads such
/// an image. Their system-library targets therefore import headers only, and each codec opens its
/// library here the first time it needs it.
///
/// A handle is never closed: a library stays mapped for the life of the process, so the function
/// pointers taken from it stay valid and can be shared between threads.
struct DynamicLibrary: Sendable {
    /// The name the library was opened under, for messages.
    let name: String
    /// `dlopen`'s handle, written once at open and only read after.
    private let handle: UInt

    /// Opens the first of `names` (sonames such as `libavif.so.15`) that the loader finds.
    ///
    /// Throws ``DynamicLibraryError`` naming every attempt when none loads.
    init(opening names: [String]) throws(DynamicLibraryError) {
        var reasons: [String] = []
        for name in names {
            if let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) {
                self.name = name
                self.handle = UInt(bitPattern: handle)
                return
            }
            reasons.append(dlerror().map { String(cString: $0) } ?? "\(name) could not be opened")
        }
        throw DynamicLibraryError(description: reasons.joined(separator: "; "))
    }

    /// The function `symbol`, as the C function pointer type `type` (for example
    /// `(@convention(c) () -> UnsafeMutablePointer<avifDecoder>?).self`).
    ///
    /// The caller vouches that `type` matches the function's C declaration.
    func function<Function>(_ symbol: String, as type: Function.Type) throws(DynamicLibraryError) -> Function {
        guard let raw = UnsafeMutableRawPointer(bitPattern: handle),
              let address = dlsym(raw, symbol) else {
            throw DynamicLibraryError(description: "\(name) has no function \(symbol)")
        }
        return unsafeBitCast(address, to: type)
    }
}

/// A library or one of its functions could not be loaded.
struct DynamicLibraryError: Error, Sendable, CustomStringConvertible {
    /// What the loader said.
    let description: String
}

extension ImageCodec {
    /// The error a decode or encode throws when the codec's library cannot be loaded.
    static func unavailableLibraryError(_ error: DynamicLibraryError, encoding: Bool = false) -> KingfisherError {
        let description = "the \(format) library could not be loaded (\(error.description))"
        return encoding ? encodingError(description) : decodingError(description)
    }
}
