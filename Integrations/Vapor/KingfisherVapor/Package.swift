// swift-tools-version: 6.0
import PackageDescription

// KingfisherVapor: Kingfisher inside a Vapor 4 application. A package of its own, so that the core
// library never depends on Vapor; it uses the core by path, as any other package would by URL.
let package = Package(
    name: "KingfisherVapor",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "KingfisherVapor", targets: ["KingfisherVapor"]),
    ],
    dependencies: [
        .package(name: "Kingfisher", path: "../../.."),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
    ],
    targets: [
        .target(
            name: "KingfisherVapor",
            dependencies: [
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "KingfisherServer", package: "Kingfisher"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // XCTest, because XCTVapor's in-process tester is built on it.
        .testTarget(
            name: "KingfisherVaporTests",
            dependencies: [
                "KingfisherVapor",
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "XCTVapor", package: "vapor"),
                .product(name: "KingfisherTestServer", package: "Kingfisher"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
