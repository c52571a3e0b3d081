import ArgumentParser
import Classroom
import CommandSupport
import OpenClassKit

/// `clsfile settings [--dictation on|off]`: the student's settings, kept in the store.
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Show or change your settings: whether you write by dictation or an input method.",
        discussion: """
            Dictation and input methods (voice typing, the composition of Chinese, Japanese or \
            Korean text) deliver text in bursts, which clsfile otherwise counts as pasted. With \
            --dictation on, every session recorded from then on, by clsfile open or an editor \
            plugin, is marked as written so: everything in it counts as typed, never as pasted, and \
            your teacher sees which sessions used it. `clsfile open --dictation FILE` marks one \
            session. The setting is kept in the store; with no option, prints it.
            """)

    /// A setting's value on the command line.
    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off
    }

    @OptionGroup var storeOptions: StoreOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Mark every session recorded from now on as written by dictation or an input method.", valueName: "on|off"))
    var dictation: Switch?

    func run() async throws {
        try await reportingFailures {
            let mode = try DeveloperMode.current()
            guard mode.role != .teacher else {
                throw ClassroomError(
                    .wrongRole,
                    "`clsfile settings` holds a student's settings, and the role now is teacher: run `clsfile role student --name \"Your Name\"` first"
                )
            }
            let store = storeOptions.dataStore()
            if let dictation { try await store.setDictating(dictation == .on) }
            print(
                try await store.isDictating()
                    ? "dictation: on (every session recorded is marked as written by dictation or an input method, its input counted as typed)"
                    : "dictation: off (bursts of input count as pasted; `clsfile open --dictation FILE` marks one session)")
        }
    }
}
