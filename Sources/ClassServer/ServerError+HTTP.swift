import Hummingbird

extension ServerError {
    /// The HTTP status each code answers with, in the JSON refusal a route sends: every code is
    /// named, so that a code added to ``ServerError`` gets its status by decision (a test fails
    /// until it has one). What the database fails with is 503: the request may be sent again later.
    static let httpStatuses: [Code: HTTPResponse.Status] = [
        .unauthorized: .unauthorized,
        .forbidden: .forbidden,
        .notFound: .notFound,
        .invalidValue: .badRequest, .invalidAddress: .badRequest, .invalidEnvironment: .badRequest,
        .tooManyContexts: .badRequest, .invalidThumbnail: .badRequest,
        .parentNotFound: .conflict, .thumbnailNotReferenced: .conflict, .alreadyAssigned: .conflict,
        .unknownAssignment: .conflict,
        .tooLarge: .contentTooLarge,
        .database: .serviceUnavailable, .schema: .serviceUnavailable, .unsafeRole: .serviceUnavailable
    ]

    /// The HTTP status it answers with (``httpStatuses``).
    var httpStatus: HTTPResponse.Status {
        // Every code is in the table (ServerErrorTests); 503 is only the answer of a table left incomplete.
        Self.httpStatuses[code] ?? .serviceUnavailable
    }
}
