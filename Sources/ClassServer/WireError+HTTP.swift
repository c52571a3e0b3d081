import ClassWire
import Hummingbird

extension WireError {
    /// The HTTP status each code answers with: a token refused is 401, a value of the wire format
    /// refused 400. Every code is named, so that a code added to ``ClassWire/WireError`` gets its
    /// status by decision (a test fails until it has one).
    static let httpStatuses: [Code: HTTPResponse.Status] = [.unauthorized: .unauthorized, .invalidValue: .badRequest]

    /// The HTTP status it answers with (``httpStatuses``).
    var httpStatus: HTTPResponse.Status {
        // Every code is in the table (ServerErrorTests); 400 is only the answer of a table left incomplete.
        Self.httpStatuses[code] ?? .badRequest
    }
}
