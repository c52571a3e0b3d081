import Foundation
import FuzzTargets
import Testing
import TestSupport

/// Replays, in process, every input the fuzzer starts from (`Fuzz/Seeds`) and every one it found
/// a bug with (`Fuzz/Regressions`), through the same code as `Scripts/fuzz`: seeds are read, found
/// inputs are read or refused, and none crashes or hangs.
struct FuzzRegressionTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appending(path: "Fuzz")

    /// The files of a folder of `Fuzz/`, one per target, each copied with the target's extension
    /// (libFuzzer names what it finds `crash-<sha1>`).
    static func inputs(_ kind: String, of target: FuzzTarget, in scratch: Scratch) throws -> [(name: String, file: URL)] {
        let folder = fuzzFolder.appending(path: "\(kind)/\(target.name)")
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map { name in
            let copy = scratch.url.appending(path: "\(kind)-\(name).\(target.fileExtension)")
            try FileManager.default.copyItem(at: folder.appending(path: name), to: copy)
            return (name, copy)
        }
    }

    @Test func everyFolderNamesATarget() throws {
        for kind in ["Seeds", "Regressions"] {
            let folder = Self.fuzzFolder.appending(path: kind)
            guard FileManager.default.fileExists(atPath: folder.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                #expect(FuzzTarget.named(name) != nil, "Fuzz/\(kind)/\(name) names no target of \(FuzzTarget.all.map(\.name))")
            }
        }
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func seedsAreReadAndFoundInputsAreReadOrRefused(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let scratch = try Scratch()
        for (seed, file) in try Self.inputs("Seeds", of: target, in: scratch) {
            #expect(throws: Never.self, "the seed \(seed) of \(name) must be valid input") { try target.run(file: file) }
        }
        for (_, file) in try Self.inputs("Regressions", of: target, in: scratch) {
            // Refused or read: either is right; a crash or a hang fails the whole run.
            _ = try? target.run(file: file)
        }
    }
}
