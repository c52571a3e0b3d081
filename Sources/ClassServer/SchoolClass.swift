import Foundation

/// A class, as the administrator lists it.
public struct SchoolClass: Sendable, Equatable, Codable {
    public var id: UUID
    public var name: String
    /// What students give to `clsfile join`.
    public var joinCode: String
    public var teacherID: UUID
    public var teacherName: String
    public var studentCount: Int
}
