// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "KingfisherBenchmarks",
    dependencies: [
        .package(name: "Kingfisher", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "codec-bench",
            dependencies: [.product(name: "Kingfisher", package: "Kingfisher")]
        ),
        .executableTarget(name: "disk-cache-bench", dependencies: [.product(name: "Kingfisher", package: "Kingfisher")]),
        .executableTarget(
            name: "download-bench",
            dependencies: [.product(name: "Kingfisher", package: "Kingfisher")]
        ),
        .executableTarget(
            name: "memory-cache-bench",
            dependencies: [.product(name: "Kingfisher", package: "Kingfisher")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
