import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile reset`: deletes the data of the development-mode role in force.
struct ResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Delete every activity, assignment and submission of the role in force.",
        discussion: """
            Only for a development-mode role (teacher or student): with the role off, your own data \
            is never deleted by clsfile. The role's identity keys are kept, so your teacher or students still recognize you. Asks you to type the role's name to confirm; --yes skips \
            the question (needed when standard input is not a terminal).
            """)

    @Flag(name: .long, help: "Do not ask for confirmation.")
    var yes = false

    func run() async throws {
        try await reportingFailures {
            let mode = try DeveloperMode.current()
            guard mode.role != .off else {
                throw ClassroomError(
                    .wrongRole,
                    "reset is for a development-mode role and the role is off: your own data is never reset; run `clsfile role teacher` or `clsfile role student` first"
                )
            }
            let store = DeveloperMode.storeURL(for: mode.role)
            if !yes {
                guard isatty(STDIN_FILENO) == 1 else {
                    throw ClassroomError(
                        .wrongRole,
                        "standard input is not a terminal, so reset cannot ask; pass --yes to delete the \(mode.role.rawValue) data in \(store.path)"
                    )
                }
                FileHandle.standardError.write(
                    Data(
                        "Delete every activity, assignment and submission of the \(mode.role.rawValue) role in \(store.path)?\nType \(mode.role.rawValue) to confirm: "
                            .utf8))
                guard readLine()?.trimmingCharacters(in: .whitespaces) == mode.role.rawValue else {
                    Diagnostics.warn("nothing was deleted")
                    throw ExitCode.failure
                }
            }
            var removed = 0
            for suffix in ["", "-wal", "-shm", ".spool"] {
                let path = store.path + suffix
                guard FileManager.default.fileExists(atPath: path) else { continue }
                do { try FileManager.default.removeItem(atPath: path) } catch {
                    throw ClassroomError(.fileAccess, "cannot delete \(path): \(error.localizedDescription); check its permissions")
                }
                removed += 1
            }
            print(removed == 0 ? "the \(mode.role.rawValue) role had no data" : "deleted the \(mode.role.rawValue) data in \(store.path)")
        }
    }
}
