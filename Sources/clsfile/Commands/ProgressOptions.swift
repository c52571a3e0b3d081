import ArgumentParser
import SessionRecorder

/// The options that choose what a file's progress measures, for `open` and `hook`.
struct ProgressOptions: ParsableArguments {
    // Unconditional: `--target-words -5` takes -5 as its value and is refused as a count, where
    // the default parsing reads -5 as an option and reports the value missing.
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Measure progress toward this many words; remembered for the file.", valueName: "n"))
    var targetWords: Int?

    @Flag(name: .long, help: "The file is being read: its progress is the share of its lines viewed (an editor plugin tells which lines).")
    var reading = false

    func validate() throws {
        _ = try Self.targetWords(targetWords, reading: reading)
    }

    /// A target word count, which must be positive, and not given with `--reading`.
    static func targetWords(_ count: Int?, reading: Bool) throws -> Int? {
        try HookLine.validated { () throws(RecorderError) in try HookRequest.targetWords(count, reading: reading) }
    }
}
