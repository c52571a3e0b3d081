import ContentDetectors
import Dispatch
import Foundation
import OpenClassKit
import SessionRecorder

/// The `hook-lines` fuzz target: an input is what a plugin writes to `hook --stdio`, one JSON
/// line an event, read and recorded as `hook --stdio` does by one recorder that lives as long as
/// the fuzzing process, into a store of its own.
///
/// A file named in a line is taken relative to a folder of documents made at the start (an essay,
/// notes, a notebook, a file that is never written); an absolute path stays absolute. At the end
/// of an input every file it named gets a `close`, as an editor closes its buffers, so that events
/// waiting for a file that never appears end with the input instead of piling up in the spool.
final class HookLines: Sendable {
    static let shared = HookLines()

    private let documents: URL
    private let recorder: SessionRecorder
    private let spool: EventSpool

    private init() {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clsfile-fuzz-hook-\(getpid())")
        documents = folder.appendingPathComponent("documents")
        do {
            try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
            try Data("An essay of a few words.\n\nA second paragraph.\n".utf8).write(to: documents.appendingPathComponent("essay.txt"))
            try Data("# Notes\n\n- [x] one\n- [ ] two\n".utf8).write(to: documents.appendingPathComponent("notes.md"))
            try Data(#"{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#.utf8)
                .write(to: documents.appendingPathComponent("notebook.ipynb"))
        } catch {
            fatalError("fuzz: cannot write the documents in \(documents.path): \(error)")
        }
        let storeURL = folder.appendingPathComponent("store.sqlite")
        recorder = SessionRecorder(
            store: CLSDataStore(storeURL: storeURL, configuration: .init(busyTimeout: 0.2)),
            configuration: .init(idleTimeout: 300))
        spool = EventSpool(storeURL: storeURL)
    }

    /// Records the lines of one input; a line that is refused is skipped, as `hook --stdio`
    /// answers it with an error and reads on.
    func record(_ input: URL) throws {
        let data = try Self.contents(of: input)
        var events: [SessionEvent] = []
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let request = try? HookRequest(line: Data(line)),
                let event = try? request.sessionEvent(file: documents.appendingPathComponent(request.file))
            else { continue }
            events.append(event)
        }
        var named: [URL] = []
        for event in events where !named.contains(event.file) { named.append(event.file) }
        let delivered = events + named.map { SessionEvent(kind: .close, file: $0) }
        let (recorder, spool) = (recorder, spool)
        Self.waiting {
            for event in delivered {
                _ = try? await recorder.deliver(event, spool: spool)
            }
        }
    }

    /// The bytes of an input, read without `Data(contentsOf:)`, which leaks a buffer on an empty
    /// file and so would stop the fuzzer with a leak that is not clsfile's.
    private static func contents(of url: URL) throws -> Data {
        guard let handle = fopen(url.path, "rb") else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        defer { fclose(handle) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case let count = fread(&buffer, 1, buffer.count, handle), count > 0 {
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }

    /// Runs asynchronous work from the fuzzer's synchronous callback and waits for it.
    private static func waiting(_ work: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await work()
            done.signal()
        }
        done.wait()
    }
}
