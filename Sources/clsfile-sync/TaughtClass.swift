import ClassSync
import ClassWire
import Foundation

/// The class a teacher's command is about: the one named (`--class`, by name or id), else the
/// only class they teach on the server.
enum TaughtClass {
    /// - Throws: ``SyncError`` `.invalidValue` when no class, or more than one, fits.
    static func chosen(_ className: String?, on client: SyncClient, server: String) async throws -> SyncWire.ClassEntry {
        let taught = try await client.classes().filter(\.isTaught)
        if let className {
            let matches = taught.filter { $0.name == className || $0.id.uuidString.lowercased() == className.lowercased() }
            guard let match = matches.first, matches.count == 1 else {
                throw SyncError(
                    .invalidValue,
                    "\(matches.isEmpty ? "you teach no class" : "you teach \(matches.count) classes") named '\(className)' on \(server); yours: \(names(taught)); give its id"
                )
            }
            return match
        }
        guard let only = taught.first, taught.count == 1 else {
            throw SyncError(
                .invalidValue,
                taught.isEmpty
                    ? "you teach no class on \(server): the administrator makes one (clsfile-server class create)"
                    : "you teach \(taught.count) classes on \(server) (\(names(taught))): choose one with --class")
        }
        return only
    }

    private static func names(_ classes: [SyncWire.ClassEntry]) -> String {
        classes.map { "\($0.name) (\($0.id.uuidString.lowercased()))" }.joined(separator: ", ")
    }
}
