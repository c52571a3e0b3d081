internal import GRDB
internal import GRDBSQLite

/// The rows of a query, stepped and read with SQLite's own calls. Reading a whole store (a
/// million spans) this way costs a fraction of what GRDB's `Row` costs a column; everything
/// else in the store goes through GRDB.
///
/// Valid only inside the `Database` access that made it, like any statement.
final class StatementRows: ColumnReader {
    private let statement: Statement
    private let db: Database

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.makeStatement(sql: sql)
    }

    /// Moves to the next row: false after the last.
    /// - Throws: `DatabaseError` when SQLite fails to read.
    func next() throws -> Bool {
        let code = sqlite3_step(statement.sqliteStatement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
    }

    func double(_ column: Int) -> Double {
        sqlite3_column_double(statement.sqliteStatement, Int32(column))
    }

    func optionalDouble(_ column: Int) -> Double? {
        isNull(column) ? nil : double(column)
    }

    func int64(_ column: Int) -> Int64 {
        sqlite3_column_int64(statement.sqliteStatement, Int32(column))
    }

    func optionalInt64(_ column: Int) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    func text(_ column: Int) -> String? {
        guard let characters = sqlite3_column_text(statement.sqliteStatement, Int32(column)) else { return nil }
        let count = Int(sqlite3_column_bytes(statement.sqliteStatement, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }

    func bytes(_ column: Int) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement.sqliteStatement, Int32(column)))
        guard count > 0, let start = sqlite3_column_blob(statement.sqliteStatement, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    private func isNull(_ column: Int) -> Bool {
        sqlite3_column_type(statement.sqliteStatement, Int32(column)) == SQLITE_NULL
    }
}
