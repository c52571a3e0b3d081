import Foundation
internal import GRDB

/// The columns of the current row of a query, by position: what the store's records are read
/// from, whether GRDB's `Row` or a ``StatementRows`` stepped by hand holds them.
protocol ColumnReader {
    func double(_ column: Int) -> Double
    /// Nil for SQL NULL.
    func optionalDouble(_ column: Int) -> Double?
    func int64(_ column: Int) -> Int64
    /// Nil for SQL NULL.
    func optionalInt64(_ column: Int) -> Int64?
    /// Nil for SQL NULL.
    func text(_ column: Int) -> String?
    /// Nil for SQL NULL.
    func bytes(_ column: Int) -> [UInt8]?
}

extension Row: ColumnReader {
    func double(_ column: Int) -> Double { self[column] }
    func optionalDouble(_ column: Int) -> Double? { self[column] }
    func int64(_ column: Int) -> Int64 { self[column] }
    func optionalInt64(_ column: Int) -> Int64? { self[column] }
    func text(_ column: Int) -> String? { self[column] }
    func bytes(_ column: Int) -> [UInt8]? { (self[column] as Data?).map { [UInt8]($0) } }
}
