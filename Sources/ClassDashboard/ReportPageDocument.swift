import Classroom

/// A page of `api/class-report.json`: the report's own keys, and `next`, the address of the next
/// page, when one follows (as the class server's `GET /api/class-report.json` has it).
struct ReportPageDocument: Encodable {
    var report: ClassReport
    var next: String?

    private enum Key: String, CodingKey { case next }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(next, forKey: .next)
    }
}
