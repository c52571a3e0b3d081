import Foundation
import OpenClassKit

// The file-based ClassKit sample from the 2022 talk, run against OpenClassKit: `openFile()` and
// `closeFile()` below are the talk's code with only the import line and the `try await` order
// changed. Around them sits just enough of an app to open and close a real file.
//
//     swift run SeedSample essay.txt [--seconds N] [--target-words N]

/// The document the sample works on, from the command line.
let fileURL: URL = {
    let arguments = CommandLine.arguments.dropFirst()
    guard let path = arguments.first(where: { !$0.hasPrefix("--") }) else {
        FileHandle.standardError.write(Data("usage: SeedSample FILE [--seconds N] [--target-words N]\n".utf8))
        exit(64)
    }
    return URL(fileURLWithPath: path)
}()

/// Reads a number given after an option, or a default.
func option(_ name: String, default value: Double) -> Double {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
        let number = Double(arguments[index + 1])
    else { return value }
    return number
}

/// Words separated by white space, as `wc -w` counts them.
func currentDocumentWordCount() -> Double {
    guard let data = FileManager.default.contents(atPath: fileURL.path) else { return 0 }
    return Double(String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).count)
}

/// The share of the target word count written so far.
func progress() -> Double {
    min(1, currentDocumentWordCount() / option("--target-words", default: 500))
}

func openFile() async throws {
    // Your existing code for opening a file goes here.
    let activity = try await CLSDataStore.shared.fetchActivity(for: fileURL)
    activity.start()
    try await CLSDataStore.shared.save()
}

func closeFile() async throws {
    let activity = try await CLSDataStore.shared.fetchActivity(for: fileURL)
    let wordCount = activity.primaryActivityItem as? CLSQuantityItem ?? CLSQuantityItem(identifier: "total_word_count", title: "Word Count")
    wordCount.quantity = currentDocumentWordCount()
    activity.primaryActivityItem = wordCount
    activity.progress = progress()
    activity.stop()
    try await CLSDataStore.shared.save()
}

@main
struct SeedSample {
    static func main() async {
        do {
            try await openFile()
            print("opened \(fileURL.path)")
            try await Task.sleep(for: .seconds(option("--seconds", default: 0)))
            try await closeFile()
            print("closed \(fileURL.path): \(Int(currentDocumentWordCount())) words")
        } catch {
            FileHandle.standardError.write(Data("SeedSample: \(error.localizedDescription)\n".utf8))
            exit(1)
        }
    }
}
