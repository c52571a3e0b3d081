import CommandSupport
import ContentDetectors
import PlainCalls
import SessionRecorder

// The exit codes of the errors only `clsfile` meets (``CommandFailure``): the document counters'
// and the session recorder's. They live here, not in CommandSupport, so that the other programs
// do not link either module.

// Its exit codes are those `stats` exits with, in PlainCalls.
extension DetectorError: CommandFailure {
    /// None: a detector's message names the file and what is wrong with it.
    public var cause: (any Error)? { nil }
}

extension RecorderError: CommandFailure {
    public var cause: (any Error)? { underlyingError }

    public static let exitCodes: [Code: Int32] = [
        .fileAccess: 66, .editorUnavailable: 69, .spoolUnavailable: 74, .storeBusy: 75,
        // A hook line that does not parse: the plugin's fault, not the user's data.
        .invalidRequest: 1
    ]
}
