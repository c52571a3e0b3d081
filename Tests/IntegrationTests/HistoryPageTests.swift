import Foundation
import HistoryPictures
import OpenClassKit
import Testing
import StoreTestSupport
import TestSupport

/// `clsfile show --html`: the writing history as one page of pictures, looked at in Chromium.
struct HistoryPageTests {
    /// Five sessions of an essay through the library, the third with a paste.
    private func essay(in scratch: Scratch) async throws -> URL {
        let file = try scratch.file("river <essay>.txt", "")
        let store = scratch.store()
        let start = Date(timeIntervalSinceNow: -5 * 86_400)
        var text = ""
        for session in 0..<5 {
            text += "Session \(session) adds a sentence about the river and the mill.\n"
            try Data(text.utf8).write(to: file)
            let activity = try await store.fetchActivity(for: file)
            let end = start.addingTimeInterval(Double(session) * 86_400 + 1200)
            activity.start(at: end.addingTimeInterval(-Double(600 + 300 * session)), continuingWithin: 0)
            let words = CLSQuantityItem(identifier: ItemIdentifier.wordCount, title: "Word Count")
            words.quantity = Double(12 * (session + 1))
            activity.primaryActivityItem = words
            for (identifier, value) in [
                (ItemIdentifier.typedCharacters, 60 * (session + 1)),
                (ItemIdentifier.pastedCharacters, session >= 2 ? 400 : 0),
                (ItemIdentifier.openTime, 900 * (session + 1))
            ] {
                let item = CLSQuantityItem(identifier: identifier, title: identifier)
                item.quantity = Double(value)
                activity.addAdditionalActivityItem(item)
            }
            activity.stop(at: end, idleTimeout: nil)
            try await store.save()
        }
        return file
    }

    @Test func thePageDrawsTheHistoryWithTextForScreenReadersAndNoScript() async throws {
        let scratch = try Scratch()
        let file = try await essay(in: scratch)
        let result = try run(try builtExecutable("clsfile"), ["show", "--html", "--store", scratch.storeURL.path, file.path])
        #expect(result.status == 0, "\(result.errorOutput)")
        let page = result.output
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<h1>river &lt;essay&gt;.txt</h1>"), "the file name is text, not markup")
        #expect(!page.contains("<script") && !page.contains("src=\"http"), "self-contained, no script")
        // Black, white and greys only: readable in black and white.
        let colours = Set(page.matches(of: /(?:fill|stroke)="([^"]+)"/).map { String($0.output.1) })
        #expect(colours.isSubset(of: ["black", "white", "#999", "none", "url(#typed-pasted-hatch)"]), "\(colours)")

        let saved = scratch.url.appendingPathComponent("history.html")
        try Data(page.utf8).write(to: saved)
        let dom = try await Chromium.dumpDOM(saved.absoluteString, in: scratch.url)
        for id in ["words-over-time", "session-bars", "typed-pasted"] {
            #expect(dom.contains("id=\"\(id)\""), "\(id) drawn")
            #expect(dom.contains("aria-labelledby=\"\(id)-title \(id)-desc\""), "\(id) named for screen readers")
        }
        #expect(dom.contains("from 12 to 60 words"), "the words chart's description gives its numbers")
        #expect(
            dom.contains("300 characters typed and 400 pasted from outside the document over 5 sessions (57% pasted)"),
            "typed and pasted per session")
        #expect(dom.matches(of: /<tr><td><time/).count == 5, "a table row per session")
        // The session bars: an open-time and an active-time bar per session.
        let bars = dom.components(separatedBy: "id=\"session-bars\"")[1].components(separatedBy: "</svg>")[0]
        #expect(bars.matches(of: /<rect [^>]*fill="black"/).count == 5 + 1, "five active bars and the legend's")

        let shot = scratch.url.appendingPathComponent("history.png")
        let png = try await Chromium.screenshot(saved.absoluteString, to: shot, width: 800, height: 1400, in: scratch.url)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 20_000, "a page with pictures, not a blank one")
        if let keep = ProcessInfo.processInfo.environment["CLSFILE_KEEP_SCREENSHOTS"] {
            try? FileManager.default.removeItem(atPath: "\(keep)/history-page.png")
            try? FileManager.default.copyItem(at: shot, to: URL(fileURLWithPath: "\(keep)/history-page.png"))
        }
    }

    @Test func aFileWithoutActivitySaysSoAndHtmlAndJsonAreOneChoice() async throws {
        let scratch = try Scratch()
        let file = try scratch.file("new.txt", "nothing yet\n")
        // No page of nothing: as `show` says, nothing is recorded.
        let page = try run(try builtExecutable("clsfile"), ["show", "--html", "--store", scratch.storeURL.path, file.path])
        #expect(page.status == 66 && page.output.isEmpty && page.errorOutput.contains("no activity recorded for"), "\(page.errorOutput)")
        let both = try run(try builtExecutable("clsfile"), ["show", "--html", "--json", "--store", scratch.storeURL.path, file.path])
        #expect(both.status == 64 && both.errorOutput.contains("Choose one of --json and --html"))
    }
}
