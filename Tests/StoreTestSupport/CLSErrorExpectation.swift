import OpenClassKit
import Testing

/// Runs `body` and returns the `CLSError` it throws; records an issue when it throws something else or nothing.
public func clsError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> CLSError? {
    do {
        try await body()
        Issue.record("expected a CLSError, got none", sourceLocation: sourceLocation)
    } catch let error as CLSError {
        return error
    } catch {
        Issue.record("expected a CLSError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
