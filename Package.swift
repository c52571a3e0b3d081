// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "clsfile",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenClassKit", targets: ["OpenClassKit"]),
        .library(name: "ContentDetectors", targets: ["ContentDetectors"]),
        .executable(name: "clsfile", targets: ["clsfile"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
    ],
    targets: [
        .target(
            name: "OpenClassKit",
            dependencies: ["CSQLite", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .systemLibrary(name: "CMagic", path: "Sources/CMagic"),
        .target(
            name: "ContentDetectors",
            dependencies: ["CMagic", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .target(name: "CTerminal"),
        .target(
            name: "SessionRecorder",
            dependencies: ["OpenClassKit", "ContentDetectors", "CTerminal"]
        ),
        .executableTarget(
            name: "clsfile",
            dependencies: [
                "OpenClassKit",
                "ContentDetectors",
                "SessionRecorder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // Editor plugins start clsfile on every event: with the Swift runtime and Foundation
            // linked statically it starts in half the time (issue 4). The modules are compiled
            // against the shared Foundation, which names only itself for linking, so the archives
            // the static Foundation needs are listed here.
            linkerSettings: [
                .unsafeFlags(["-static-stdlib"]),
                .linkedLibrary("FoundationEssentials"), .linkedLibrary("_FoundationCollections"),
                .linkedLibrary("CoreFoundation"), .linkedLibrary("_FoundationICU"), .linkedLibrary("_FoundationCShims"),
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
            name: "DetectorBenchmark",
            dependencies: ["ContentDetectors"],
            path: "Benchmarks/DetectorBenchmark"
        ),
        .executableTarget(
            name: "SessionBenchmark",
            path: "Benchmarks/SessionBenchmark"
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
            name: "SessionRecorderTests",
            dependencies: ["SessionRecorder", "OpenClassKit", "TestSupport"]
        ),
        .testTarget(
            name: "ContentDetectorsTests",
            dependencies: ["ContentDetectors", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            resources: [.copy("Fixtures")]
        ),
        // The integration tests run the built clsfile binary, which `swift build --build-tests` and
        // `swift test` build with every product; depending on the clsfile target would link its
        // module, and its static runtime flags, into the test bundle.
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["OpenClassKit", "TestSupport", "SeedSample"]
        ),
    ]
)
