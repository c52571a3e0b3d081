import Foundation
internal import GRDB

/// Turns SQLite's errors into ``CLSError``s that name the store and say what to do.
enum SQLiteErrorTranslator {
    /// Whether a translated error says the store was busy.
    static func isBusy(_ error: CLSError) -> Bool {
        guard let database = error.underlyingError as? DatabaseError else { return false }
        return database.resultCode == .SQLITE_BUSY || database.resultCode == .SQLITE_LOCKED
    }

    static func translate(_ error: any Error, path: String, busyTimeout: TimeInterval) -> CLSError {
        if let error = error as? CLSError { return error }
        guard let database = error as? DatabaseError else {
            return CLSError(.databaseInaccessible, "store \(path) failed: \(error.localizedDescription)")
        }
        let detail = database.message ?? "\(database.resultCode)"
        switch database.resultCode {
        case .SQLITE_NOTADB:
            return CLSError(
                .databaseInaccessible,
                "\(path) is not an OpenClassKit store (not an SQLite database); it was left untouched: move it aside or choose another store path (CLSFILE_STORE names the shared store's)",
                underlyingError: database)
        case .SQLITE_CORRUPT:
            return CLSError(
                .databaseInaccessible,
                "the store \(path) is damaged (\(detail)); what failed was not written: try `sqlite3 \(path) .recover`, or move it aside",
                underlyingError: database)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return CLSError(
                .databaseInaccessible,
                "the store \(path) stayed locked by another process for over \(busyTimeout) s (\(database.extendedResultCode): \(database.sql ?? detail)); nothing was written: try again",
                underlyingError: database)
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH:
            return CLSError(
                .databaseInaccessible,
                "cannot open the store \(path) for writing (\(detail)): check the permissions of the file and its folder",
                underlyingError: database)
        case .SQLITE_FULL, .SQLITE_IOERR:
            return CLSError(
                .databaseInaccessible,
                "cannot write the store \(path) (\(detail)): check free disk space",
                underlyingError: database)
        default:
            return CLSError(.databaseInaccessible, "the store \(path) failed: \(detail)", underlyingError: database)
        }
    }
}

extension CLSError {
    /// Whether the store was held by another process for longer than the busy timeout, so that
    /// trying again later may succeed.
    package var isBusy: Bool { SQLiteErrorTranslator.isBusy(self) }
}
