// swift-tools-version: 6.0
import PackageDescription

// A small program that uses Kingfisher the way another package would: as a dependency.
// Outside this repository, replace the path with
// `.package(url: "https://github.com/<owner>/kingfisher-linux", branch: "main")`.
let package = Package(
    name: "Thumbnailer",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Kingfisher", path: "../..")],
    targets: [
        .executableTarget(
            name: "Thumbnailer",
            dependencies: [.product(name: "Kingfisher", package: "Kingfisher")]
        ),
    ]
)
