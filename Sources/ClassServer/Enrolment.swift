import Foundation

/// A student's place in a class, as joining returns it.
public struct Enrolment: Sendable, Equatable, Codable {
    public var accountID: UUID
    public var keyIdentifier: String
    public var classID: UUID
    public var className: String
    /// The class's teacher's recipient public key (P-256, X9.63): the key their handouts carry.
    public var teacherKey: Data
}
