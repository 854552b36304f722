// swift-tools-version: 6.0
import PackageDescription

// KingfisherGTK: the GTK 4 adapter of Kingfisher's view layer. A package of its own, so that the
// core library and everything else that depends on it never needs GTK; it uses the core by path,
// as any other package would use it by URL.
let package = Package(
    name: "KingfisherGTK",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "KingfisherGTK", targets: ["KingfisherGTK"]),
    ],
    dependencies: [.package(name: "Kingfisher", path: "../..")],
    targets: [
        .systemLibrary(
            name: "CGTK",
            pkgConfig: "gtk4",
            providers: [.apt(["libgtk-4-dev"])]
        ),
        // The one C target: GLib and GTK macros Swift cannot import (g_signal_connect, the checked
        // casts, G_SOURCE_CONTINUE).
        .target(
            name: "KingfisherGTKShims",
            dependencies: ["CGTK"]
        ),
        .target(
            name: "KingfisherGTK",
            dependencies: [
                "CGTK", "KingfisherGTKShims",
                .product(name: "Kingfisher", package: "Kingfisher"),
            ]
        ),
        // Pixel checks on real widgets in a real window: run under a display (`xvfb-run -a`).
        .testTarget(
            name: "KingfisherGTKTests",
            dependencies: [
                "KingfisherGTK",
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "KingfisherTestServer", package: "Kingfisher"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
