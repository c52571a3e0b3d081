/// A kind of progress a context reports, with an optional description of how it is measured.
public final class CLSProgressReportingCapability: CLSObject, Hashable, @unchecked Sendable {
    /// The kinds of progress. Raw values are ClassKit's.
    public enum Kind: Int, Sendable, CaseIterable {
        case duration = 0
        case percent
        case binary
        case quantity
        case score
    }

    /// What kind of progress.
    public let kind: Kind
    /// How it is measured, in words, if the app says.
    public let details: String?

    /// Creates a capability.
    public init(kind: Kind, details: String?) {
        self.kind = kind
        self.details = details
        super.init()
    }

    public static func == (lhs: CLSProgressReportingCapability, rhs: CLSProgressReportingCapability) -> Bool {
        lhs.kind == rhs.kind && lhs.details == rhs.details
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(details)
    }

    public override var description: String {
        "<CLSProgressReportingCapability \(kind)\(details.map { ": \($0)" } ?? "")>"
    }
}
