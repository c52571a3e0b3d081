// swift-tools-version:6.1
import PackageDescription

#if canImport(Glibc)
import Glibc
#endif

/// What the release `clsfile` (the front) and `clsfile-main` are linked with, for a short start-up:
/// editor plugins start `clsfile` on every event, and `clsfile stats` is compared with other tools
/// process to process.
///
/// - SQLite, zlib, the C++ runtime, libpng and TurboJPEG come from their static archives, through
///   `Scripts/link-static-deps` (it says why and how); this saves about a millisecond a process.
///   The same script leaves out the run path (`$ORIGIN`) SwiftPM gives executables: clsfile has no
///   shared library beside it, and the loader searched ten folders for libm and libc on each start.
/// - The unwinder comes from libgcc's archive (`-static-libgcc`), not from libgcc_s.so: loading and
///   binding one more shared library cost each process about 0.3 ms. Nothing throws C++ exceptions
///   across a shared library boundary (libmagic, opened with dlopen, is C), which is the case that
///   needs the shared unwinder.
/// - Only the symbols that shared libraries need are exported. The static standard library's
///   link arguments export every public symbol of every package module (13,000 names), which the
///   loader hashes and the runtime's start-up `dladdr` scans; nothing looks them up by name.
/// - The loader moves the binary's 95,000 absolute pointers to where address randomisation put
///   it. Packed in the compact RELR form (lld's `-z pack-relative-relocs`) they take 18 KB instead
///   of 2 MB to read, which saves about half a millisecond. The glibc loader reads that form from
///   version 2.36 on, so the building machine's glibc decides (the binary then needs 2.36 where it
///   runs). -no-pie would save another 0.6 ms (the copies of the 286 pages those pointers are on),
///   but clsfile parses untrusted documents, so its code keeps address randomisation. So would
///   -static-pie, which keeps it; but a static glibc loads libmagic, iconv's converters and the
///   user database's modules with a dlopen that works only with the very glibc build it was linked
///   with, and the next glibc update on the machine would break them.
/// - The functions and zeroed data that the start-up paths of `hook` and `stats` touch come first
///   in their sections, in the order they are first used (`Scripts/clsfile-start-up.order`, which
///   `Scripts/start-up-order` writes from Valgrind traces): spread over 23 MB of code and 1 MB of
///   zeroed data, they took about 85 page faults more a start (571 for a `stats` of an ODT, now
///   485: 0.83–0.88× the time; a `hook edit` 0.87×). The linker skips a name that is gone; CI says
///   when the file is stale.
/// - The `CArguments` target keeps argv from the start of the process for `CommandLine`, in place of
///   the standard library's search for it (an initializer that reads /proc/self/maps on every
///   start); linked statically, the standard library's own is then left out. See its source.
let startUpLinkerFlags: [String] = {
    var flags = [
        "-use-ld=lld", "-Xclang-linker", "--ld-path=\(Context.packageDirectory)/Scripts/link-static-deps",
        "-Xclang-linker", "-static-libgcc", "-Xlinker", "--no-export-dynamic",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Scripts/clsfile-start-up.order",
        "-Xlinker", "--no-warn-symbol-ordering"
    ]
    #if canImport(Glibc)
    // "glibc 2.36"
    var text = [CChar](repeating: 0, count: 64)
    _ = confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count)
    let version =
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
    if version.count >= 2, (version[0], version[1]) >= (2, 36) {
        flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
    }
    #endif
    return flags
}()

/// The modules of the `clsfile` front (`clsfile-front`) and of all it depends on, by build folder
/// name: the objects its release link keeps (see Scripts/link-static-deps). One left out is an
/// undefined symbol at that link.
let frontModules = [
    "clsfile_front", "PlainCalls", "ContentDetectors", "ProgramBasics", "CArguments", "CFront", "CTextScan", "SystemPackage", "CSystem",
    "NIOConcurrencyHelpers", "CNIOAtomics"
]

let package = Package(
    name: "clsfile",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "OpenClassKit", targets: ["OpenClassKit"]),
        .library(name: "ContentDetectors", targets: ["ContentDetectors"]),
        .library(name: "Classroom", targets: ["Classroom"]),
        .library(name: "ClassDashboard", targets: ["ClassDashboard"]),
        .library(name: "FuzzTargets", targets: ["FuzzTargets"]),
        .library(name: "ClassServer", targets: ["ClassServer"]),
        .library(name: "ClassSync", targets: ["ClassSync"]),
        .library(name: "ClassWire", targets: ["ClassWire"]),
        .executable(name: "clsfile", targets: ["clsfile-front"]),
        .executable(name: "clsfile-main", targets: ["clsfile"]),
        .executable(name: "clsfile-sync", targets: ["clsfile-sync"]),
        .executable(name: "clsfile-server", targets: ["clsfile-server"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // `swift package generate-documentation`: CI builds every module's DocC with warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0")
    ],
    targets: [
        .target(
            name: "OpenClassKit",
            dependencies: [
                "ProgramBasics", "CSQLite", "CInflate", "CPNG", "CTurboJPEG", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Its lock is pthread's, which ThreadSanitizer sees; Synchronization's
                // Mutex locks with futexes in code it does not instrument.
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]
        ),
        // What every program and the library read of the process and the user, and how a program
        // writes a message, without Foundation: the `clsfile` front links no more.
        .target(name: "ProgramBasics"),
        .target(name: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        .systemLibrary(name: "CMagic", path: "Sources/CMagic"),
        .systemLibrary(name: "CInflate", path: "Sources/CInflate"),
        // A context's thumbnail is decoded in full before it is kept or served (ThumbnailImage).
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .yum(["libpng-devel"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .yum(["turbojpeg-devel"]), .brew(["jpeg-turbo"])]),
        .target(name: "CTextScan"),
        .target(
            name: "ContentDetectors",
            // Foundation-free, so that a program that only counts documents starts without it.
            dependencies: [
                "CMagic", "CTextScan", "CInflate", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]
        ),
        // The calls the `clsfile` front answers without Foundation, the store or ArgumentParser:
        // `stats`, and a hook call handed to the hook agent; clsfile-main answers them the same way.
        .target(
            name: "PlainCalls",
            dependencies: ["ContentDetectors", "ProgramBasics"]
        ),
        .target(name: "CTerminal"),
        .target(name: "CArguments"),
        // The `clsfile` front's early hand-over of the commands it does not answer (see its source).
        .target(name: "CFront"),
        .target(
            name: "HistoryPictures",
            dependencies: ["OpenClassKit"]
        ),
        .target(
            name: "SessionRecorder",
            dependencies: [
                "OpenClassKit", "ContentDetectors", "CTerminal",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ]
        ),
        .target(
            name: "Classroom",
            dependencies: ["OpenClassKit", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "ClassDashboard",
            dependencies: [
                "Classroom",
                "HistoryPictures",
                "OpenClassKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras")
            ]
        ),
        // The format deployed clients and servers must keep compatible: wire types, tokens, their error.
        .target(
            name: "ClassWire",
            dependencies: [
                "Classroom",
                "OpenClassKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit")
            ]
        ),
        .target(
            name: "ClassSync",
            dependencies: [
                "ClassWire",
                "Classroom",
                "OpenClassKit",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ]
        ),
        .target(
            name: "ClassServer",
            dependencies: [
                "Classroom",
                "ClassWire",
                "ClassDashboard",
                "OpenClassKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // LTI: the platform's signed launches and its keys (JWKS), the tool's RSA keys.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client")
            ],
            resources: [.embedInCode("Catalog/catalog-openapi.yaml")]
        ),
        .executableTarget(
            name: "clsfile-server",
            dependencies: [
                "ClassDashboard", "ClassServer", "ClassWire", "CommandSupport", "ProgramBasics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio")
            ]
        ),
        .target(
            name: "CommandSupport",
            // What every program needs, and nothing that only one of them uses: the exit codes of
            // the errors only clsfile meets are in clsfile, so that clsfile-server, clsfile-serve
            // and clsfile-sync link neither SessionRecorder nor ContentDetectors.
            dependencies: [
                "OpenClassKit", "Classroom", "ProgramBasics",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        // The names, help and options of the commands clsfile hands to clsfile-sync and clsfile-serve,
        // declared once: those programs parse them, and clsfile shows them in its help, manual pages and
        // completions without linking the client or the web server.
        .target(
            name: "ForwardedCommands",
            dependencies: ["CommandSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "clsfile-serve",
            dependencies: [
                "ClassDashboard",
                "CommandSupport",
                "ForwardedCommands",
                "OpenClassKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        .executableTarget(
            name: "clsfile-sync",
            dependencies: [
                "ClassSync", "ClassWire", "CommandSupport", "Classroom", "ForwardedCommands", "OpenClassKit", "ProgramBasics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        .executableTarget(
            name: "clsfile",
            dependencies: [
                "OpenClassKit",
                "CArguments",
                "PlainCalls",
                "ProgramBasics",
                "CommandSupport",
                "Classroom",
                "ContentDetectors",
                "ForwardedCommands",
                "HistoryPictures",
                "SessionRecorder",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio")
            ],
            // clsfile-main: the front runs it for every call but a plain `stats` and a hook call the
            // agent takes, and the first hook call of a store records itself here. Statically
            // linked, the standard library and Foundation need no loading and symbol binding at
            // start-up, which halves it. Only the module's own dependencies are named, so
            // CoreFoundation and Foundation's other parts are listed. Release only: the debug test bundle links clsfile's code against the shared
            // libraries that swift-testing uses. See `startUpLinkerFlags` for the rest.
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-static-stdlib", "-lFoundationEssentials", "-lCoreFoundation", "-l_FoundationICU",
                        "-l_FoundationCShims", "-l_FoundationCollections"
                    ] + startUpLinkerFlags,
                    .when(configuration: .release))
            ]
        ),
        // `clsfile`: the front that editors and tools start on every event and file (see
        // Sources/clsfile-front). It depends on clsfile so that building it builds clsfile-main,
        // which it runs for every other call; an executable's code is not linked into another.
        .executableTarget(
            name: "clsfile-front",
            dependencies: ["PlainCalls", "CArguments", "CFront", "clsfile"],
            // As clsfile's (below), with nothing of Foundation to name, and only the objects of the
            // modules it uses: clsfile-main's libraries are left out (see Scripts/link-static-deps).
            linkerSettings: [
                .unsafeFlags(
                    ["-static-stdlib", "-Xlinker", "--package-objects-of=" + frontModules.joined(separator: ",")] + startUpLinkerFlags,
                    .when(configuration: .release))
            ]
        ),
        .executableTarget(
            name: "SeedSample",
            dependencies: ["OpenClassKit"],
            path: "Samples/SeedSample"
        ),
        .target(
            name: "FuzzTargets",
            dependencies: [
                "ContentDetectors", "Classroom", "OpenClassKit", "SessionRecorder", .product(name: "SystemPackage", package: "swift-system")
            ]
        ),
        .executableTarget(
            name: "ContextSample",
            dependencies: ["OpenClassKit"],
            path: "Samples/ContextSample"
        ),
        .executableTarget(
            name: "Soak",
            dependencies: ["OpenClassKit"],
            path: "Benchmarks/Soak"
        ),
        .executableTarget(
            name: "StoreBenchmark",
            dependencies: ["OpenClassKit"],
            path: "Benchmarks/StoreBenchmark"
        ),
        .executableTarget(
            name: "DetectorBenchmark",
            // clsfile: built first, so that `swift run DetectorBenchmark` times the real command.
            dependencies: [
                "ContentDetectors", "TestSupport", "clsfile", "clsfile-front", .product(name: "SystemPackage", package: "swift-system")
            ],
            path: "Benchmarks/DetectorBenchmark"
        ),
        .executableTarget(
            name: "ClassServerBenchmark",
            // clsfile-server: built first, so that the benchmark loads the real server.
            dependencies: [
                "ClassServer", "ClassSync", "ClassWire", "OpenClassKit", "TestSupport", "clsfile-server",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Benchmarks/ClassServerBenchmark"
        ),
        .executableTarget(
            name: "WorkLimitsBenchmark",
            dependencies: [
                "ClassServer", "ClassWire", "OpenClassKit", "StoreTestSupport", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log")
            ],
            path: "Benchmarks/WorkLimitsBenchmark"
        ),
        .executableTarget(
            name: "CatalogBenchmark",
            // clsfile-server, clsfile and clsfile-sync: built first, so that the benchmark times the real programs.
            dependencies: [
                "ClassServer", "ClassSync", "ClassWire", "OpenClassKit", "TestSupport", "clsfile-server", "clsfile", "clsfile-front",
                "clsfile-sync",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log")
            ],
            path: "Benchmarks/CatalogBenchmark"
        ),
        .executableTarget(
            name: "LTIBenchmark",
            // clsfile-server: built first, so that the benchmark launches the real server.
            dependencies: [
                "TestSupport", "clsfile-server",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio")
            ],
            path: "Benchmarks/LTIBenchmark"
        ),
        .executableTarget(
            name: "HistoryBenchmark",
            // clsfile: built first, so that `--evidence` times the real command.
            dependencies: ["OpenClassKit", "TestSupport", "clsfile", "clsfile-front"],
            path: "Benchmarks/HistoryBenchmark"
        ),
        .executableTarget(
            name: "SessionBenchmark",
            path: "Benchmarks/SessionBenchmark"
        ),
        .executableTarget(
            name: "ReportBenchmark",
            // clsfile: built first, so that `swift run ReportBenchmark` times the real command.
            dependencies: ["OpenClassKit", "TestSupport", "clsfile", "clsfile-front"],
            path: "Benchmarks/ReportBenchmark"
        ),
        .executableTarget(
            name: "store-worker",
            dependencies: ["OpenClassKit"],
            path: "Tests/StoreWorker"
        ),
        // What tests of any module use: temporary folders, a seeded generator, processes, tmux,
        // PostgreSQL, nginx, Chromium. It does not depend on OpenClassKit.
        .target(
            name: "TestSupport",
            // CPNG and CTurboJPEG: its test images are real PNG and JPEG files, written by libpng and libjpeg-turbo.
            dependencies: ["CPNG", "CTurboJPEG"],
            path: "Tests/TestSupport"
        ),
        // What tests of the store use: a store in a temporary folder, CLSError expectations, the plain work merge.
        .target(
            name: "StoreTestSupport",
            dependencies: ["OpenClassKit", "TestSupport"],
            path: "Tests/StoreTestSupport"
        ),
        .testTarget(
            name: "OpenClassKitTests",
            dependencies: ["OpenClassKit", "StoreTestSupport", "TestSupport", "store-worker"]
        ),
        .testTarget(
            name: "SessionRecorderTests",
            dependencies: ["SessionRecorder", "OpenClassKit", "StoreTestSupport", "TestSupport"]
        ),
        .testTarget(
            name: "ContentDetectorsTests",
            dependencies: [
                "ContentDetectors", "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "SystemPackage", package: "swift-system")
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ClassroomTests",
            dependencies: ["Classroom", "OpenClassKit", "SessionRecorder", "TestSupport"]
        ),
        .testTarget(
            name: "ClassDashboardTests",
            dependencies: [
                "ClassDashboard", "Classroom", "OpenClassKit", "TestSupport", "clsfile", "clsfile-front", "clsfile-serve",
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        .testTarget(
            name: "ClassServerTests",
            dependencies: [
                "ClassServer", "ClassSync", "ClassWire", "Classroom", "CommandSupport", "OpenClassKit", "TestSupport", "clsfile-server",
                "clsfile-sync", "clsfile", "clsfile-front",
                "ContextSample",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log")
            ]
        ),
        .testTarget(
            name: "ClassSyncTests",
            dependencies: [
                "ClassSync", "ClassWire", "OpenClassKit", "StoreTestSupport", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto")
            ]
        ),
        .testTarget(
            name: "ClassWireTests",
            dependencies: ["ClassWire", "Classroom", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // clsfile's commands in this process: their parsing, help, entry points and exit codes.
        .testTarget(
            name: "CLITests",
            dependencies: [
                "CArguments", "ClassDashboard", "ClassSync", "ClassWire", "Classroom", "CommandSupport", "ContentDetectors",
                "ForwardedCommands", "OpenClassKit", "PlainCalls", "SessionRecorder", "TestSupport", "clsfile", "clsfile-front",
                "clsfile-serve", "clsfile-sync",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        // The built programs run as people and editors run them: clsfile, its helpers, the samples, the install.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "OpenClassKit", "Classroom", "ClassDashboard", "CommandSupport", "ContentDetectors", "HistoryPictures", "ProgramBasics",
                "SessionRecorder",
                "StoreTestSupport", "TestSupport", "clsfile", "clsfile-front", "clsfile-serve", "clsfile-sync", "SeedSample",
                "ContextSample", "FuzzTargets",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            // Read from the source tree by GoldenOutputTests, which can also rewrite them.
            exclude: ["Golden"]
        )
    ]
)

// Every Swift target of the package sees a module's extensions only in the files that import the
// module (Swift 6.1's `MemberImportVisibility`): without it, a string interpolation in
// HistoryPictures became GRDB's `SQL` through an import of another file, and drew nothing.
//
// In release builds a concrete generic type's metadata is made by calling its accessor with the
// conformances the compiler knows, not by demangling its name at run time: the run time then looks
// each conformance up by scanning every conformance record of the binary (about 0.45 M
// instructions each, the first time), 1.9 M of the 12.1 M instructions of a `clsfile hook edit`.
// Only when this package is built itself: SwiftPM refuses a product with unsafe flags to a package
// that depends on it from a repository (checked out under a `checkouts` folder).
let tunesRelease = !Context.packageDirectory.split(separator: "/").contains("checkouts")
let cTargets: Set<String> = ["CSQLite", "CTextScan", "CTerminal", "CArguments", "CFront"]
for target in package.targets where target.type != .system && !cTargets.contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("MemberImportVisibility")
        ]
        + (tunesRelease
            ? [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"], .when(configuration: .release))]
            : [])
}
