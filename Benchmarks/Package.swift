// swift-tools-version: 6.0
import PackageDescription

let benchDependencies: [Target.Dependency] = [
    "BenchSupport", .product(name: "Kingfisher", package: "Kingfisher"),
]

let package = Package(
    name: "KingfisherBenchmarks",
    dependencies: [
        .package(name: "Kingfisher", path: ".."),
    ],
    targets: [
        // Argument parsing, failure and medians shared by the benchmark programs.
        .target(name: "BenchSupport"),
        .executableTarget(name: "animation-bench", dependencies: benchDependencies),
        .executableTarget(name: "codec-bench", dependencies: benchDependencies),
        .executableTarget(name: "disk-cache-bench", dependencies: benchDependencies),
        .executableTarget(name: "download-bench", dependencies: benchDependencies),
        .executableTarget(name: "memory-cache-bench", dependencies: benchDependencies),
        .executableTarget(name: "progressive-bench", dependencies: benchDependencies),
    ],
    swiftLanguageModes: [.v6]
)
