// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Kingfisher",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Kingfisher", targets: ["Kingfisher"]),
        .executable(name: "kf", targets: ["kf"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
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
        .systemLibrary(
            name: "CLibWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // The one C target: libjpeg reports errors by longjmp, which must never cross a Swift frame.
        .target(
            name: "KingfisherCShims",
            dependencies: ["CLibJPEG"]
        ),
        .target(
            name: "Kingfisher",
            dependencies: [
                "KingfisherCShims", "CLibPNG", "CGIFLib", "CLibWebP",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "kf",
            dependencies: [
                "Kingfisher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test support: key-derived payloads shared by the tests and the cache-stress child process.
        .target(name: "KingfisherTestSupport", path: "Tests/KingfisherTestSupport"),
        .executableTarget(name: "cache-stress", dependencies: ["Kingfisher", "KingfisherTestSupport"], path: "Tests/CacheStress"),
        .testTarget(
            name: "KingfisherTests",
            dependencies: ["Kingfisher", "KingfisherTestSupport"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
