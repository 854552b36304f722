import Crypto
import Foundation
import KingfisherSynchronization

/// How one embedded profile's pixels become sRGB.
enum ColorConversion: Sendable {
    /// Nothing to do: the profile is sRGB in all but name, or it cannot be used.
    case unchanged
    /// A matrix/TRC profile, converted in Swift.
    case matrixShaper(MatrixShaperTransform)
    /// Any other profile, converted by lcms2.
    case lcms(LCMSTransform)

    /// Converts `pixelCount` straight RGBA pixels from `start` in place, on this thread.
    func apply(_ start: UnsafeMutableRawPointer, pixelCount: Int) {
        switch self {
        case .unchanged:
            return
        case .matrixShaper(let transform):
            transform.convert(start, count: pixelCount)
        case .lcms(let transform):
            transform.apply(UnsafeMutableRawBufferPointer(start: start, count: pixelCount * 4), pixelCount: pixelCount,
                            input: .rgba, threads: 1)
        }
    }
}

/// The conversions of recently seen profiles, since making one costs milliseconds (lcms2 builds
/// and optimises a pipeline; the Swift path computes 17,000 powers) and a page's photos tend to
/// share a handful of profiles.
///
/// Keyed by the SHA-256 of the profile bytes (or the code points) and the pixel layout; at most
/// ``capacity`` entries, the oldest dropped first. Failures are cached too, so a corrupt profile is
/// parsed once.
enum ColorTransformCache {
    /// Conversions kept at once.
    static let capacity = 16

    private struct Entries: Sendable {
        var conversions: [String: ColorConversion] = [:]
        var order: [String] = []
    }

    private static let entries = Mutex(Entries())

    /// The conversion for `key`, made by `make` (outside the lock) when it is not cached.
    static func conversion(for key: String, make: () -> ColorConversion) -> ColorConversion {
        if let cached = entries.withLock({ $0.conversions[key] }) {
            return cached
        }
        let made = make()
        entries.withLock { entries in
            guard entries.conversions[key] == nil else { return }
            if entries.order.count >= capacity {
                let oldest = entries.order.removeFirst()
                entries.conversions[oldest] = nil
            }
            entries.conversions[key] = made
            entries.order.append(key)
        }
        return made
    }

    /// The cache key of ICC profile bytes read as `layout`.
    static func key(icc data: Data, layout: String) -> String {
        let digest = SHA256.hash(data: data)
        return layout + ":" + digest.map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }.joined()
    }
}
