import Foundation

/// A person the class server knows: a teacher (added by the administrator) or a student (who
/// joined a class), named in requests by the id of their device's key.
public struct Account: Sendable, Equatable, Codable {
    /// What an account may do.
    public enum Role: String, Sendable, Codable {
        case teacher, student
    }

    public var id: UUID
    public var role: Role
    public var name: String
    /// The id of the device key (`kid` in a request's token).
    public var keyIdentifier: String
}
