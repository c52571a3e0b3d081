import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// A stand-in for an LMS, for `--lti`: on loopback in the benchmark's process, it answers the
/// class server's grade passback as fast as it can and counts it. `POST /token` gives an access
/// token; `POST /lineitems/N/scores` takes a score (204).
///
/// It is a measuring device, not a test of LTI: it checks nothing the server sends (the client
/// assertion, the score's body). The tests of grade passback run against the Python test LMS.
final class GradebookSink: Sendable {
    /// Where it listens, as `http://127.0.0.1:PORT`.
    let url: String
    private let counts: NIOLockedValueBox<(tokens: Int, scores: Int)>
    private let serving: Task<Void, Never>

    /// The scores posted so far.
    var scores: Int { counts.withLockedValue { $0.scores } }
    /// The access tokens asked for so far.
    var tokens: Int { counts.withLockedValue { $0.tokens } }

    private init(url: String, counts: NIOLockedValueBox<(tokens: Int, scores: Int)>, serving: Task<Void, Never>) {
        self.url = url
        self.counts = counts
        self.serving = serving
    }

    /// Starts the sink on a free loopback port and returns once it listens.
    static func start() async -> GradebookSink {
        let counts = NIOLockedValueBox((tokens: 0, scores: 0))
        let router = Router()
        router.post("/token") { _, _ -> Response in
            counts.withLockedValue { $0.tokens += 1 }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"access_token":"t","token_type":"Bearer","expires_in":3600}"#)))
        }
        router.post("/lineitems/:item/scores") { _, _ -> HTTPResponse.Status in
            counts.withLockedValue { $0.scores += 1 }
            return .noContent
        }
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "benchmark.gradebook")
        // Hummingbird logs its cancelled channels as errors when the sink stops.
        logger.logLevel = .critical
        let application = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? 0)
                announce.finish()
            },
            logger: logger)
        let serving = Task {
            do {
                try await application.runService()
            } catch {
                FileHandle.standardError.write(Data("ClassServerBenchmark: the gradebook sink stopped: \(error)\n".utf8))
            }
            announce.finish()
        }
        guard let port = await ports.first(where: { _ in true }), port > 0 else {
            ClassServerBenchmark.fail("the gradebook sink could not listen on loopback")
        }
        return GradebookSink(url: "http://127.0.0.1:\(port)", counts: counts, serving: serving)
    }

    /// Stops listening.
    func stop() { serving.cancel() }
}
