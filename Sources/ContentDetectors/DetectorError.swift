#if canImport(Glibc)
internal import Glibc
#endif

/// The one error type thrown by this module.
///
/// Every error carries a ``code`` to switch on and a one-line ``message`` that names the
/// file and says what to do about it.
public struct DetectorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, independent of the file.
    public struct Code: Hashable, Sendable, CustomStringConvertible, CaseIterable {
        private enum Kind: String, Sendable, CaseIterable {
            case notARegularFile, fileTooLarge, unreadable, unsupportedFormat
            case corruptArchive, encryptedEntry, decompressionLimit, malformedDocument
            case libraryUnavailable
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// Every code, for the tables that give each its meaning (exit codes, HTTP statuses): a
        /// code added here is in them, and their tests fail until it has one.
        public static var allCases: [Code] { Kind.allCases.map(Code.init) }

        /// The path is a directory, FIFO, socket or device; nothing was read from it.
        public static let notARegularFile = Code(.notARegularFile)
        /// The file is larger than ``AnalysisOptions/maximumFileSize``; nothing was read from it.
        public static let fileTooLarge = Code(.fileTooLarge)
        /// The file could not be opened or read.
        public static let unreadable = Code(.unreadable)
        /// The content is of a MIME type that no extractor handles.
        public static let unsupportedFormat = Code(.unsupportedFormat)
        /// A ZIP container is truncated or malformed.
        public static let corruptArchive = Code(.corruptArchive)
        /// A ZIP container holds an encrypted entry.
        public static let encryptedEntry = Code(.encryptedEntry)
        /// A ZIP entry decompresses beyond the size or ratio limits (a likely ZIP bomb).
        public static let decompressionLimit = Code(.decompressionLimit)
        /// A document's structure is invalid or exceeds a structural limit.
        public static let malformedDocument = Code(.malformedDocument)
        /// libmagic, which tells binary files and some text formats apart, cannot be loaded or failed.
        public static let libraryUnavailable = Code(.libraryUnavailable)

        public var description: String { kind.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// One line naming the path and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }

    static func notARegularFile(_ path: String, _ what: String) -> DetectorError {
        DetectorError(.notARegularFile, "\(path) is a \(what), not a regular file; pass a regular file instead.")
    }
    static func fileTooLarge(_ path: String, size: Int64, limit: Int64) -> DetectorError {
        DetectorError(
            .fileTooLarge, "\(path) is \(size) bytes, above the \(limit)-byte limit; raise AnalysisOptions.maximumFileSize to count it.")
    }
    static func unreadable(_ path: String, errno code: Int32) -> DetectorError {
        DetectorError(.unreadable, "\(path) cannot be read (\(String(cString: strerror(code)))); check that it exists and is readable.")
    }
    static func unsupported(_ path: String, mimeType: String) -> DetectorError {
        DetectorError(
            .unsupportedFormat,
            "\(path) is \(mimeType), which has no text extractor; convert it to a supported format such as DOCX, ODT, HTML or plain text.")
    }
    static func corruptArchive(_ path: String, _ detail: String) -> DetectorError {
        DetectorError(.corruptArchive, "\(path) is a damaged ZIP container (\(detail)); re-save the document and try again.")
    }
    static func encrypted(_ path: String, entry: String) -> DetectorError {
        DetectorError(.encryptedEntry, "\(path) has an encrypted entry \(entry); save the document without a password.")
    }
    static func decompressionLimit(_ path: String, entry: String, detail: String) -> DetectorError {
        DetectorError(.decompressionLimit, "\(path) entry \(entry) \(detail); the file looks like a ZIP bomb, so it was not expanded.")
    }
    static func notebookCellTooLarge(_ path: String, limit: Int64) -> DetectorError {
        DetectorError(
            .fileTooLarge,
            "\(path) has a notebook cell whose source is above the \(limit)-byte limit; raise AnalysisOptions.maximumNotebookSize to count it."
        )
    }
    static func malformed(_ path: String, _ detail: String) -> DetectorError {
        DetectorError(.malformedDocument, "\(path) is malformed (\(detail)); re-save the document and try again.")
    }
}
