// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "clsfile",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenClassKit", targets: ["OpenClassKit"]),
        .executable(name: "clsfile", targets: ["clsfile"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "OpenClassKit",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "clsfile",
            dependencies: [
                "OpenClassKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "SeedSample",
            dependencies: ["OpenClassKit"],
            path: "Samples/SeedSample"
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["OpenClassKit"],
            path: "Benchmarks/StoreBenchmark"
        ),
        .executableTarget(
            name: "store-worker",
            dependencies: ["OpenClassKit"],
            path: "Tests/StoreWorker"
        ),
        .target(
            name: "TestSupport",
            dependencies: ["OpenClassKit"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "OpenClassKitTests",
            dependencies: ["OpenClassKit", "TestSupport", "store-worker"]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["OpenClassKit", "TestSupport", "clsfile", "SeedSample"]
        ),
    ]
)
