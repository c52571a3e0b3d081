// swift-tools-version:6.1
import PackageDescription

// The fuzzing harness, a package of its own so that the main package's `swift build` never
// builds it: it needs libFuzzer, which `-sanitize=fuzzer` links. Built and run by Scripts/fuzz
// with `-sanitize=fuzzer,address`.
let package = Package(
    name: "clsfile-fuzz",
    dependencies: [.package(name: "clsfile", path: "..")],
    targets: [
        .executableTarget(
            name: "clsfile-fuzz",
            dependencies: [.product(name: "FuzzTargets", package: "clsfile")],
            path: "Sources"
        ),
    ]
)
