// swift-tools-version: 6.0
import PackageDescription

// An avatar service on Vapor: GET /avatar?url=… fetches the image, makes a round-cornered
// thumbnail, caches it and answers PNG. It uses KingfisherVapor by path, as another package would
// by URL.
let package = Package(
    name: "VaporAvatar",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "KingfisherVapor", path: "../../Integrations/Vapor/KingfisherVapor"),
        .package(name: "Kingfisher", path: "../.."),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .executableTarget(
            name: "VaporAvatar",
            dependencies: [
                .product(name: "KingfisherVapor", package: "KingfisherVapor"),
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
