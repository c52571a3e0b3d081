import Classroom
import ContentDetectors
import Foundation
import OpenClassKit
import SessionRecorder
import SystemPackage

/// One parser of what others make, run on one input at a time under a coverage-guided fuzzer
/// (`Scripts/fuzz`) and by the regression tests that replay what the fuzzer found.
///
/// An input is written to a file named with the target's extension and read the way clsfile reads
/// such a file, so the fuzzer goes through the same checks (kind detection, size limits, the ZIP
/// container) as a real document. Errors are the expected answer to bad input; a crash, a hang or
/// memory that keeps growing is a bug.
public struct FuzzTarget: Sendable {
    /// The name `Scripts/fuzz` takes.
    public let name: String
    /// What it reads, for `Scripts/fuzz --list`.
    public let summary: String
    /// The extension the input file gets, which with its content picks the parser.
    public let fileExtension: String
    /// The extensions of the test fixtures that seed its corpus.
    public let seedExtensions: [String]
    private let read: @Sendable (URL) throws -> Void

    init(
        _ name: String, _ summary: String, extension fileExtension: String, seeds: [String],
        read: @escaping @Sendable (URL) throws -> Void
    ) {
        self.name = name
        self.summary = summary
        self.fileExtension = fileExtension
        seedExtensions = seeds
        self.read = read
    }

    /// Reads one input file; what it throws is the parser refusing bad input.
    public func run(file url: URL) throws {
        try read(url)
    }

    /// Writes one input to the process's scratch file for this target and reads it; errors are
    /// dropped, as bad input is expected to be refused.
    public func run(_ input: UnsafeRawBufferPointer) {
        let url = Self.scratchFolder.appendingPathComponent("input.\(fileExtension)")
        guard let handle = fopen(url.path, "wb") else { fatalError("fuzz: cannot write \(url.path)") }
        if input.count > 0 { _ = fwrite(input.baseAddress, 1, input.count, handle) }
        fclose(handle)
        _ = try? read(url)
    }

    /// A folder of this process's own, for the input files.
    private static let scratchFolder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clsfile-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    /// Every target, by name.
    public static let all: [FuzzTarget] = [
        FuzzTarget(
            "kind", "kind detection (libmagic and content checks) of any bytes", extension: "bin",
            seeds: ["txt", "md", "html", "tex", "rtf", "docx", "odt", "fodt", "ipynb"]
        ) { url in
            _ = try KindDetector().kind(of: FilePath(url.path))
        },
        document("plain-text", "plain text in every supported encoding", extension: "txt", seeds: ["txt"]),
        document("markdown", "Markdown", extension: "md", seeds: ["md"]),
        document("html", "HTML, with its declared charset", extension: "html", seeds: ["html"]),
        document("latex", "LaTeX", extension: "tex", seeds: ["tex"]),
        document("rtf", "RTF", extension: "rtf", seeds: ["rtf"]),
        document("docx", "DOCX: the ZIP container and the XML tokenizer", extension: "docx", seeds: ["docx"]),
        document("odt", "ODT: the ZIP container and the XML tokenizer", extension: "odt", seeds: ["odt"]),
        document("epub", "EPUB: the ZIP container, its package file and XHTML", extension: "epub", seeds: ["docx", "odt"]),
        document("flat-odt", "flat ODT (one XML file)", extension: "fodt", seeds: ["fodt"]),
        document("notebook", "Jupyter notebooks", extension: "ipynb", seeds: ["ipynb"]),
        FuzzTarget(
            "handout", "handouts (.clshandout), as accept and open read them", extension: "clshandout",
            seeds: ["clshandout"]
        ) { url in
            _ = try Handout.read(from: url)
        },
        FuzzTarget(
            "submission", "submission files (.clssubmission), as collect reads them before decrypting",
            extension: "clssubmission", seeds: ["clssubmission"]
        ) { url in
            _ = try SubmissionFile.read(from: url)
        },
        FuzzTarget(
            "hook-lines", "JSON lines of hook --stdio, recorded into a store of the run's own",
            extension: "jsonl", seeds: []
        ) { url in
            try HookLines.shared.record(url)
        },
        FuzzTarget("manifest", "course manifests, as contexts import reads them", extension: "json", seeds: ["json"]) { url in
            _ = try CourseManifest.read(from: url)
        },
        FuzzTarget(
            "snapshot-delta", "a content snapshot's compressed delta, as the dashboard rebuilds a submission's",
            extension: "delta", seeds: []
        ) { url in
            // As a delta from a known text, the way the copies of a real history read it. The
            // input has no digest to give, so the check of the digest, last, is the one failure
            // that is not the delta's.
            let delta = try Self.bytes(of: url)
            let entry = WritingHistoryEntry(date: Date(), sessionStart: Date(), activeTime: 0)
            do {
                try WritingSnapshotRecord.rebuild([
                    WritingSnapshotRecord(keyframeOf: Array("The river rises in the hills.\nIt runs to the sea.\n".utf8), entry: entry),
                    WritingSnapshotRecord(entry: entry, delta: delta, digest: Data(), isKeyframe: false)
                ]) { _ in }
            } catch let error as CLSError where error.message.contains("its digest differs") {
                return
            }
        }
    ]

    /// The target with a name, if any.
    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// A file's bytes, read with the C library: Foundation's `Data(contentsOf:)` leaks its buffer
    /// on an empty file, which LeakSanitizer would take for the target's.
    private static func bytes(of url: URL) throws -> Data {
        guard let file = fopen(url.path, "rb") else { throw CocoaError(.fileReadNoSuchFile) }
        defer { fclose(file) }
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            result.append(contentsOf: buffer[..<count])
        }
        return result
    }

    /// A target that analyzes a document as `clsfile stats` does.
    private static func document(_ name: String, _ summary: String, extension fileExtension: String, seeds: [String]) -> FuzzTarget {
        FuzzTarget(name, summary, extension: fileExtension, seeds: seeds) { url in
            _ = try DocumentAnalyzer().analyze(FilePath(url.path))
        }
    }
}
