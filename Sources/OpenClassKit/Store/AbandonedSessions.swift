import Foundation
internal import NIOConcurrencyHelpers

/// What a session's end measures in a file whose session a dead process left: the program that
/// records sessions knows how to count a file, this library does not.
///
/// When a process that runs a session dies (`kill -9` of an editor's wrapper), the next process to
/// open the store ends the session at its last sign of work. With a measurer set, it also adds the
/// session's open time up to then and counts the file as it was left, so that the session keeps
/// the figures of the last text saved.
enum AbandonedSessions {
    private static let measurer = NIOLockedValueBox<(@Sendable (URL) -> CLSDataStore.FileFigures?)?>(nil)

    static func set(_ measure: @escaping @Sendable (URL) -> CLSDataStore.FileFigures?) {
        measurer.withLockedValue { $0 = measure }
    }

    /// Whether this process records editor sessions: a measurer was set.
    static var isRecorded: Bool {
        measurer.withLockedValue { $0 != nil }
    }

    /// The file's figures; nil without a measurer, or when the file cannot be measured.
    static func figures(of file: URL) -> CLSDataStore.FileFigures? {
        measurer.withLockedValue { $0 }?(file)
    }
}

extension CLSDataStore {
    /// A file's word and character counts, as a program that measures files gives them.
    public struct FileFigures: Sendable, Equatable {
        /// Words, by the program's counting rules.
        public var words: Int
        /// Characters of text.
        public var characters: Int

        /// Creates the figures.
        public init(words: Int, characters: Int) {
            self.words = words
            self.characters = characters
        }
    }

    /// Sets how the file of a session left by a dead process is measured, when a store opened in
    /// this process ends that session: its word count (the primary item `total_word_count`,
    /// unless the primary item is another) and characters (`characters`) then hold the text as
    /// the file was left, and its open time (`open_time`) gains the session's time up to its last
    /// sign of work. Without it such a session keeps the figures it last saved. Not part of
    /// ClassKit.
    /// - Parameter measure: Counts a file; nil when it cannot (the figures are then left as they are).
    public static func measureFilesOfAbandonedSessions(with measure: @escaping @Sendable (URL) -> FileFigures?) {
        AbandonedSessions.set(measure)
    }
}
