// swift-tools-version: 6.0
import PackageDescription

/// libFuzzer targets for the parsers that read bytes from strangers. Built only by
/// `scripts/fuzz.sh` (with `-sanitize=fuzzer,address`), never by the root package's build or
/// tests. Each executable is one target: a `main.swift` defining `LLVMFuzzerTestOneInput` whose
/// top-level code hands it to libFuzzer's driver (SwiftPM supplies `main`, not libFuzzer).
let targets = [
    "decode-jpeg", "decode-png", "decode-gif", "decode-webp", "decode-avif", "decode-heic", "decode-jxl",
    "decode-limits",
    "header", "downsample", "processor-spec", "disk-journal", "download",
]

let package = Package(
    name: "KingfisherFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Kingfisher", path: "..")],
    targets: [
        .target(name: "CFuzzDriver"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzDriver", .product(name: "Kingfisher", package: "Kingfisher")]
        ),
    ] + targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: ["FuzzSupport", .product(name: "Kingfisher", package: "Kingfisher")],
            path: "Sources/\(name)"
        )
    },
    swiftLanguageModes: [.v6]
)
