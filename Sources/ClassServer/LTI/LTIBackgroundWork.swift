import Logging

/// The loop of the server's work with the LMSes beside the requests (scores sent, rosters read):
/// each step takes what is due; the next runs at once after a step that found work, after
/// `idle` after one that found none, and after 10 s after one the database failed.
enum LTIBackgroundWork {
    static func repeating(
        every idle: Duration, logger: Logger, what: String, isolation: isolated (any Actor)? = #isolation,
        _ step: () async throws -> Int
    ) async {
        while !Task.isCancelled {
            do {
                if try await step() == 0 { try? await Task.sleep(for: idle) }
            } catch {
                logger.error("\(what) could not be read", metadata: ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(10))
            }
        }
    }
}
