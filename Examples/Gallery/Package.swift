// swift-tools-version: 6.0
import PackageDescription

// The gallery: a GTK 4 app that shows a scrolling grid of remote images through KingfisherGTK.
// `bash scripts/gallery.sh` builds and runs it.
let package = Package(
    name: "Gallery",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "KingfisherGTK", path: "../../Integrations/GTK"),
        .package(name: "Kingfisher", path: "../.."),
    ],
    targets: [
        .target(
            name: "GalleryKit",
            dependencies: [
                .product(name: "KingfisherGTK", package: "KingfisherGTK"),
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "KingfisherTestServer", package: "Kingfisher"),
            ]
        ),
        .executableTarget(name: "Gallery", dependencies: ["GalleryKit"]),
        // Runs under a display (`xvfb-run -a`).
        .testTarget(
            name: "GalleryTests",
            dependencies: [
                "GalleryKit",
                .product(name: "KingfisherGTK", package: "KingfisherGTK"),
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "KingfisherTestServer", package: "Kingfisher"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
