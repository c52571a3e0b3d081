import Foundation
import Testing
import StoreTestSupport
import TestSupport

/// The user's own controls of the writing history: no snapshots at all, and forgetting a file's.
struct HistoryCommandTests {
    private func clsfile(_ arguments: [String], store: URL, environment: [String: String] = [:]) throws -> ProcessResult {
        try run(try builtExecutable("clsfile"), arguments + ["--store", store.path], environment: environment)
    }

    private func history(of file: URL, store: URL) throws -> [[String: Any]] {
        let shown = try clsfile(["show", "--json", file.path], store: store)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
        return object["history"] as? [[String: Any]] ?? []
    }

    @Test func snapshotsOffKeepsTheFiguresAndNoText() throws {
        let scratch = try Scratch()
        let file = try scratch.file("secret.txt", "API_KEY=do-not-keep\n")
        for event in ["open", "close"] {
            let result = try clsfile(["hook", event, file.path], store: scratch.storeURL, environment: ["CLSFILE_SNAPSHOTS": "off"])
            #expect(result.status == 0, "\(result.errorOutput)")
        }
        let rows = try history(of: file, store: scratch.storeURL)
        #expect(rows.count == 2 && rows.allSatisfy { $0["snapshotBytes"] == nil }, "\(rows)")
        let replay = try clsfile(["replay", file.path], store: scratch.storeURL)
        #expect(replay.status == 66 && replay.errorOutput.contains("has no snapshots"), "\(replay.errorOutput)")
        let raw =
            try Data(contentsOf: scratch.storeURL)
            + ((try? Data(contentsOf: URL(fileURLWithPath: scratch.storeURL.path + "-wal"))) ?? Data())
        #expect(raw.range(of: Data("do-not-keep".utf8)) == nil, "the text is nowhere in the store")
    }

    @Test func forgetDeletesTheSnapshotsOrTheWholeHistory() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "Some words of an essay.\n")
        for event in ["open", "close"] {
            #expect(try clsfile(["hook", event, file.path], store: scratch.storeURL).status == 0)
        }
        #expect(try history(of: file, store: scratch.storeURL).compactMap { $0["snapshotBytes"] }.count == 2)
        let snapshots = try clsfile(["forget", "--snapshots-only", file.path], store: scratch.storeURL)
        #expect(snapshots.status == 0 && snapshots.output.contains("forgot 2 snapshots of the text"), "\(snapshots.output)")
        let kept = try history(of: file, store: scratch.storeURL)
        #expect(kept.count == 2 && kept.allSatisfy { $0["snapshotBytes"] == nil })
        let all = try clsfile(["forget", file.path], store: scratch.storeURL)
        #expect(all.status == 0 && all.output.contains("forgot 2 rows of writing history"), "\(all.output)")
        #expect(try history(of: file, store: scratch.storeURL).isEmpty)
        let shown = try clsfile(["show", "--json", file.path], store: scratch.storeURL)
        #expect(shown.output.contains("\"sessions\""), "the activity and its sessions stay")
        let missing = try clsfile(["forget", scratch.url.appendingPathComponent("nothing.txt").path], store: scratch.storeURL)
        #expect(missing.status == 66, "\(missing.errorOutput)")
    }
}
