// swift-tools-version: 6.0
import PackageDescription

// KingfisherVapor: Kingfisher inside a Vapor 4 application, and the image server's routes mounted in
// one. A package of its own, so that the core library never depends on Vapor; it uses the core and
// KingfisherServer by path, as any other package would by URL.
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
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // The tests run kf serve's own Hummingbird application beside the Vapor mount.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "KingfisherVapor",
            dependencies: [
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "KingfisherServer", package: "Kingfisher"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // XCTest, because XCTVapor's in-process tester is built on it.
        .testTarget(
            name: "KingfisherVaporTests",
            dependencies: [
                "KingfisherVapor",
                .product(name: "Kingfisher", package: "Kingfisher"),
                .product(name: "KingfisherServer", package: "Kingfisher"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "XCTVapor", package: "vapor"),
                .product(name: "KingfisherTestServer", package: "Kingfisher"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
