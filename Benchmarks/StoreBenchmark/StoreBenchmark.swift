import Foundation
import OpenClassKit

/// Measures `fetchActivity` + a change + `save()` on a store that already holds many files, then
/// `contexts(matchingIdentifierPath:)` on a context tree of many contexts.
///
///     swift run -c release StoreBenchmark [--files 100000] [--operations 2000] [--contexts 100000] [--keep DIR]
///
/// Goals: p50 ≤ 1 ms and p99 ≤ 5 ms per file operation (issue 2); p50 ≤ 1 ms per path lookup on
/// a tree of 100,000 contexts, and a course manifest of 10,000 contexts imported in ≤ 2 s (issue 17).
@main
struct StoreBenchmark {
    static func main() async throws {
        let files = option("--files", default: 100_000)
        let operations = option("--operations", default: 2_000)
        let folder = try makeFolder()
        defer { if !CommandLine.arguments.contains("--keep") { try? FileManager.default.removeItem(at: folder) } }
        let storeURL = folder.appendingPathComponent("store.sqlite")

        let paths = try makeFiles(files, in: folder)
        let populating = ContinuousClock.now
        let store = CLSDataStore(storeURL: storeURL)
        for (index, path) in paths.enumerated() {
            let activity = try await store.fetchActivity(for: path)
            activity.start()
            activity.stop()
            activity.progress = Double(index % 100) / 100
            let words = CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
            words.quantity = Double(index % 5000)
            activity.primaryActivityItem = words
            if index % 1000 == 999 || index == paths.count - 1 {
                try await store.save()
                report("populating: \(index + 1) of \(paths.count) files")
            }
        }
        report("populated \(paths.count) files in \(populating.duration(to: .now))\n")

        // Fresh store object, as a new process would have.
        let measured = CLSDataStore(storeURL: storeURL)
        var generator = SystemRandomNumberGenerator()
        var latencies: [Double] = []
        latencies.reserveCapacity(operations)
        for round in 0..<operations {
            let path = paths[Int.random(in: 0..<paths.count, using: &generator)]
            let start = ContinuousClock.now
            let activity = try await measured.fetchActivity(for: path)
            activity.start()
            activity.addProgressRange(fromStart: 0.5, toEnd: 0.6)
            let words =
                activity.primaryActivityItem as? CLSQuantityItem
                ?? CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
            words.quantity += 1
            activity.primaryActivityItem = words
            activity.stop()
            try await measured.save()
            latencies.append(milliseconds(start.duration(to: .now)))
            if round % 500 == 499 { report("measuring: \(round + 1) of \(operations)") }
        }
        report("")
        checkpoint(storeURL)
        let bytes = fileSize(storeURL) + fileSize(URL(fileURLWithPath: storeURL.path + "-wal"))

        latencies.sort()
        let p50 = percentile(latencies, 0.50), p99 = percentile(latencies, 0.99)
        print("StoreBenchmark: fetchActivity + change + save() on a store of \(files) files, \(operations) operations")
        print(
            String(
                format: "  p50 %.3f ms   p90 %.3f ms   p99 %.3f ms   max %.3f ms   mean %.3f ms",
                p50, percentile(latencies, 0.90), p99, latencies.last ?? 0,
                latencies.reduce(0, +) / Double(max(1, latencies.count))))
        print(String(format: "  store %.1f MiB, %.0f bytes per activity", Double(bytes) / 1_048_576, Double(bytes) / Double(files)))
        print("  goal p50 ≤ 1 ms: \(p50 <= 1 ? "met" : "MISSED");  goal p99 ≤ 5 ms: \(p99 <= 5 ? "met" : "MISSED")")
        try await measureContexts(
            option("--contexts", default: 100_000), lookups: operations,
            storeURL: folder.appendingPathComponent("contexts.sqlite"))
        try await measureManifestImport(10_000, folder: folder)
    }

    /// A manifest of 100 chapters of 99 sections each (10,000 contexts) imported into a new store.
    static func measureManifestImport(_ count: Int, folder: URL) async throws {
        let chapters = 100, sections = count / chapters - 1
        var entries: [String] = []
        for chapter in 0..<chapters {
            entries.append(#"{"data": {"identifierPath": ["course", "ch\#(chapter)"], "title": "Chapter \#(chapter)", "type": "chapter"}}"#)
            for section in 0..<sections {
                entries.append(
                    #"{"data": {"identifierPath": ["course", "ch\#(chapter)", "s\#(section)"], "title": "Section \#(section)", "type": "section", "summary": "A section of the course.", "suggestedAge": [10, 12]}}"#
                )
            }
        }
        let manifestURL = folder.appendingPathComponent("course.json")
        let text =
            #"{"contexts": [{"data": {"identifierPath": ["course"], "title": "Course", "type": "course"}}, "#
            + entries.joined(separator: ",\n") + "]}"
        try Data(text.utf8).write(to: manifestURL)
        let store = CLSDataStore(storeURL: folder.appendingPathComponent("course.sqlite"))
        let start = ContinuousClock.now
        let result = try await store.importContexts(try CourseManifest.read(from: manifestURL))
        let seconds = milliseconds(start.duration(to: .now)) / 1000
        print("StoreBenchmark: a course manifest of \(result.created) contexts imported into a new store")
        print(String(format: "  %.2f s   goal ≤ 2 s: %@", seconds, seconds <= 2 ? "met" : "MISSED"))
    }

    /// A tree of books, chapters and sections (100 × 100 × 10 for 100,000 sections), saved a book
    /// at a time; then path lookups from a fresh data store, as a new process makes them.
    static func measureContexts(_ count: Int, lookups: Int, storeURL: URL) async throws {
        let books = 100, sections = 10, chapters = max(1, count / (books * sections))
        let filling = ContinuousClock.now
        let store = CLSDataStore(storeURL: storeURL)
        for book in 0..<books {
            let bookContext = CLSContext(type: .book, identifier: "book-\(book)", title: "Book \(book)")
            store.mainAppContext.addChildContext(bookContext)
            for chapter in 0..<chapters {
                let chapterContext = CLSContext(type: .chapter, identifier: "chapter-\(chapter)", title: "Chapter \(chapter)")
                bookContext.addChildContext(chapterContext)
                for section in 0..<sections {
                    chapterContext.addChildContext(
                        CLSContext(type: .section, identifier: "section-\(section)", title: "Section \(section)"))
                }
            }
            try await store.save()
            if book % 10 == 9 { report("filling: \(book + 1) of \(books) books") }
        }
        let total = books * (1 + chapters * (1 + sections))
        report("filled \(total) contexts in \(filling.duration(to: .now))\n")

        let measured = CLSDataStore(storeURL: storeURL)
        var generator = SystemRandomNumberGenerator()
        var latencies: [Double] = []
        for _ in 0..<lookups {
            let path = [
                "book-\(Int.random(in: 0..<books, using: &generator))",
                "chapter-\(Int.random(in: 0..<chapters, using: &generator))",
                "section-\(Int.random(in: 0..<sections, using: &generator))"
            ]
            let start = ContinuousClock.now
            let found = try await measured.contexts(matchingIdentifierPath: path)
            latencies.append(milliseconds(start.duration(to: .now)))
            guard found.count == 3 else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: storeURL.path]) }
        }
        latencies.sort()
        let p50 = percentile(latencies, 0.50)
        print("StoreBenchmark: contexts(matchingIdentifierPath:) of 3 levels on a tree of \(total) contexts, \(lookups) lookups")
        print(
            String(
                format: "  p50 %.3f ms   p90 %.3f ms   p99 %.3f ms   max %.3f ms", p50, percentile(latencies, 0.90),
                percentile(latencies, 0.99), latencies.last ?? 0))
        print("  goal p50 ≤ 1 ms: \(p50 <= 1 ? "met" : "MISSED")")
    }

    static func option(_ name: String, default value: Int) -> Int {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
            let number = Int(arguments[index + 1]), number > 0
        else { return value }
        return number
    }

    static func makeFolder() throws -> URL {
        if let index = CommandLine.arguments.firstIndex(of: "--keep"), index + 1 < CommandLine.arguments.count {
            let url = URL(fileURLWithPath: CommandLine.arguments[index + 1])
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clsfile-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Empty files, a thousand to a folder.
    static func makeFiles(_ count: Int, in folder: URL) throws -> [URL] {
        var urls: [URL] = []
        urls.reserveCapacity(count)
        for index in 0..<count {
            let subfolder = folder.appendingPathComponent(String(format: "d%03d", index / 1000))
            if index % 1000 == 0 {
                try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
            }
            let url = subfolder.appendingPathComponent(String(format: "essay-%06d.txt", index))
            if !FileManager.default.fileExists(atPath: url.path) {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
            }
            urls.append(url)
            if index % 10_000 == 9_999 { report("making files: \(index + 1) of \(count)") }
        }
        return urls
    }

    static func milliseconds(_ duration: Swift.Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ sorted: [Double], _ share: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * share).rounded(.up)) - 1)]
    }

    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    /// Folds the write-ahead log into the store file so its size is the data's.
    static func checkpoint(_ url: URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [url.path, "PRAGMA wal_checkpoint(TRUNCATE);"]
        process.standardOutput = FileHandle.nullDevice
        try? process.run()
        process.waitUntilExit()
    }

    /// Progress on standard error, on one line.
    static func report(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }
}
