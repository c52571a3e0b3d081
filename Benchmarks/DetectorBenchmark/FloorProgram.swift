import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A Swift program that starts, prints a line and ends: the floor of a `clsfile stats` process,
/// built in the benchmark's run with the link `clsfile` has (the standard library statically,
/// lld, the compact RELR relocations where glibc reads them, libgcc's unwinder from its archive).
///
/// Two are built: a bare "hello", and one that makes a `URL`, so that FoundationEssentials is
/// linked, as in every Swift program that reads a URL, a `Data` or a `Date` (`clsfile` also links
/// Foundation, through GRDB). Timed beside pandoc, each shows the most that any such program can
/// reach against it on this machine.
struct FloorProgram {
    var name: String
    var path: String

    private static let programs = [
        ("Swift hello (static stdlib)", "hello", #"print("hello")"#),
        (
            "hello + FoundationEssentials", "hello-essentials",
            """
            import FoundationEssentials
            print(URL(fileURLWithPath: CommandLine.arguments.last ?? "").lastPathComponent)
            """
        )
    ]

    /// Builds both programs in `folder`; says on standard output why one is missing.
    static func buildAll(in folder: URL) throws -> [FloorProgram] {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        guard let swiftc = path.split(separator: ":").map({ "\($0)/swiftc" }).first(where: FileManager.default.isExecutableFile)
        else {
            print("floor rows skipped: swiftc is not on PATH")
            return []
        }
        var built: [FloorProgram] = []
        for (name, file, source) in programs {
            let sourceURL = folder.appendingPathComponent("\(file).swift")
            let binary = folder.appendingPathComponent(file).path
            try Data((source + "\n").utf8).write(to: sourceURL)
            _ = try run(swiftc, ["-O", sourceURL.path, "-o", binary] + linkFlags)
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                print("floor row skipped: `swiftc -O \(sourceURL.path) \(linkFlags.joined(separator: " "))` built nothing")
                continue
            }
            built.append(FloorProgram(name: name, path: binary))
        }
        return built
    }

    /// `clsfile`'s release link, as Package.swift gives it, less what only `clsfile` needs.
    private static var linkFlags: [String] {
        var flags = ["-static-stdlib", "-use-ld=lld", "-Xclang-linker", "-static-libgcc"]
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
    }
}
