import Logging
internal import PostgresNIO

extension PostgresConnection {
    /// Runs one statement, its values bound from the interpolation (the asynchronous form:
    /// a plain `query` with a literal picks the older form that takes a `String`).
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        try await self.query(query, logger: logger)
    }
}

extension AsyncSequence {
    /// Every element, in order.
    func collected() async throws -> [Element] {
        var elements: [Element] = []
        for try await element in self { elements.append(element) }
        return elements
    }
}
