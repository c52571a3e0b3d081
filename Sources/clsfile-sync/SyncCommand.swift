import ArgumentParser
import ClassSync
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile join`, `clsfile sync` and `clsfile status`: a student's side of the class server.
///
/// A program of its own, which `clsfile` runs for those commands, so that the HTTP client is not
/// loaded by the `clsfile` that editor plugins start on every event.
@main
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clsfile-sync",
        abstract: "Join a class on a class server and send it your assigned work; read a class from it (teacher).",
        discussion: """
            Run as `clsfile join`, `clsfile sync`, `clsfile status`, `clsfile leave` and `clsfile class-report --server`. Only assigned documents' \
            work is ever sent: each save of one writes an operation to the store's outbox, in the \
            same transaction, which a sync sends and the server acknowledges. Offline, operations \
            wait; nothing is lost, and sending one twice changes nothing.

            Exit codes: 0 done; 64 not in the student role, or a bad option; 65 refused by the \
            server (a wrong join code, a malformed request); 66 no class server joined yet; 69 the \
            server cannot be reached; 74 a store that cannot be read or written; 77 the server does \
            not accept this device's key.
            """,
        subcommands: [
            JoinCommand.self, SendCommand.self, StatusCommand.self, LeaveCommand.self, ReportCommand.self, RegisterCommand.self,
            CatalogCommand.self
        ])

    @OptionGroup var verboseOption: VerboseOption
}

/// The client's rows of the exit-code table (``CommandFailure``): a value given that is refused
/// is a usage error, what the server refused bad data, a class not joined a missing input, a key
/// the server does not take a permission refused; a server that cannot be reached, a program that
/// cannot run now.
extension SyncError: CommandFailure {
    public var cause: (any Error)? { underlyingError }

    public static let exitCodes: [Code: Int32] = [
        .invalidValue: 64, .refused: 65, .notJoined: 66, .unauthorized: 77, .unreachable: 69
    ]
}
