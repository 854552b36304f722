// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Kingfisher",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Kingfisher", targets: ["Kingfisher"]),
        .library(name: "KingfisherServer", targets: ["KingfisherServer"]),
        .executable(name: "kf", targets: ["kf"]),
        // Test support, not the library's API: the loopback HTTP server that the tests of every
        // package in this repository, and the gallery demo, start on 127.0.0.1.
        .library(name: "KingfisherTestServer", targets: ["KingfisherTestServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.1.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // `swift package generate-documentation` (scripts/docs.sh); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]
        ),
        .systemLibrary(
            name: "CLibPNG",
            pkgConfig: "libpng16",
            providers: [.apt(["libpng-dev"])]
        ),
        .systemLibrary(
            name: "CGIFLib",
            providers: [.apt(["libgif-dev"])]
        ),
        // PNG's fast paths: one-call inflate and deflate, and CRC-32.
        .systemLibrary(
            name: "CLibDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]
        ),
        .systemLibrary(
            name: "CLibWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // Headers only (no link line): Kingfisher opens these libraries on first use, see
        // Sources/Kingfisher/Utility/DynamicLibrary.swift.
        .systemLibrary(name: "CLibAVIF", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CLibHEIF", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CLibJXL", providers: [.apt(["libjxl-dev"])]),
        .systemLibrary(name: "CLCMS2", providers: [.apt(["liblcms2-dev"])]),
        // The one C target: libjpeg reports errors by longjmp, which must never cross a Swift frame.
        .target(
            name: "KingfisherCShims",
            dependencies: ["CLibJPEG"]
        ),
        // Synchronization, re-exported; under -DKF_SANITIZER_LOCKS its Mutex is one TSan can see.
        .target(name: "KingfisherSynchronization"),
        .target(
            name: "Kingfisher",
            dependencies: [
                "KingfisherSynchronization", "KingfisherCShims", "CLibPNG", "CLibDeflate", "CGIFLib", "CLibWebP",
                "CLibAVIF", "CLibHEIF", "CLibJXL", "CLCMS2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The image server: routes an app can mount in its own Hummingbird application.
        .target(
            name: "KingfisherServer",
            dependencies: [
                "Kingfisher", "KingfisherSynchronization",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // libcurl for `kf`, opened on first use rather than by the loader at every start.
        .target(
            name: "KFCurlLoader",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "kf",
            dependencies: [
                "Kingfisher",
                "KingfisherServer",
                "KingfisherSynchronization",
                "KFCurlLoader",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Linking"],
            // Start-up memory of the release binary (measured in the note of issue 7): the
            // statically linked runtime exports every symbol and carries ~120,000 relative
            // relocations, whose table and targets the loader touches on every start (6 MB of
            // resident pages). lld packs them (RELR, glibc 2.36+) and nothing is exported; the
            // binary stays position-independent. Sources/kf/Linking/kf-release.cfg then drops
            // libcurl (whose functions KFCurlLoader defines) and its thirty libraries from the NEEDED
            // list, lays out together the code that `kf --help` and `kf process` run, and links
            // libstdc++ statically: peak RSS of `kf process` on a 24 MP JPEG 29.3 → 18.1 MB. Its
            // options must precede the autolinked libraries and the Swift driver puts every -Xlinker
            // flag after the inputs, so they come from a clang configuration file, placed first.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                     "-Xclang-linker", "--config=\(Context.packageDirectory)/Sources/kf/Linking/kf-release.cfg"],
                    .when(platforms: [.linux], configuration: .release)),
            ]
        ),
        // Test support: key-derived payloads shared by the tests and the cache-stress child process.
        .target(name: "KingfisherTestSupport", path: "Tests/KingfisherTestSupport"),
        .executableTarget(name: "cache-stress", dependencies: ["Kingfisher", "KingfisherTestSupport"], path: "Tests/CacheStress"),
        // The loopback HTTP server the networking tests run against; test support only, never shipped.
        .target(
            name: "KingfisherTestServer",
            dependencies: [
                "KingfisherSynchronization",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/KingfisherTestServer"
        ),
        .testTarget(
            name: "KingfisherTests",
            dependencies: ["Kingfisher", "KingfisherSynchronization", "KingfisherTestSupport", "KingfisherTestServer"],
            // Fixtures keep their folder; Images land at the bundle's top level, where an app's
            // resources are, for KFCrossPlatformImage(named:in:).
            resources: [.copy("Fixtures"), .process("Images")]
        ),
        .testTarget(
            name: "KingfisherServerTests",
            dependencies: [
                "KingfisherServer", "Kingfisher", "KingfisherSynchronization", "KingfisherTestServer", "KingfisherTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
