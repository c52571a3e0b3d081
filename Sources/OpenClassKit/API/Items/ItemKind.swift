/// Which subclass of ``CLSActivityItem`` an item is, as stores, reports and submissions name it.
/// Not part of ClassKit.
public enum ItemKind: String, Sendable, Codable, CaseIterable {
    /// A ``CLSQuantityItem``.
    case quantity
    /// A ``CLSScoreItem``.
    case score
    /// A ``CLSBinaryItem``.
    case binary
}
