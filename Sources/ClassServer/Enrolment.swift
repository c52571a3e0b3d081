import Foundation

/// A student's place in a class, as joining returns it.
public struct Enrolment: Sendable, Equatable, Codable {
    public var accountID: UUID
    public var keyIdentifier: String
    public var classID: UUID
    public var className: String
}
