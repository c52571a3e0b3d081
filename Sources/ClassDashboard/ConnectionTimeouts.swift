package import HummingbirdCore
internal import NIOCore

/// How long a connection to one of clsfile's web servers (the teacher's dashboard, the class
/// server) may hold the server without finishing a request: a client that sends half a request
/// and stalls, or sends it a byte at a time, is disconnected.
///
/// ```swift
/// let configuration = DashboardServer.Configuration(timeouts: .init(idle: .seconds(10), requestBody: .seconds(30)))
/// ```
public struct ConnectionTimeouts: Sendable, Equatable {
    /// The longest a connection may send nothing while the server is not answering it: between
    /// requests, or with a request's head or body half-sent. Then it is closed.
    public var idle: Duration
    /// The longest from a request's head to the end of its body, however slowly it comes. Then
    /// the connection is closed, with no answer.
    public var requestBody: Duration

    /// Creates timeouts; by default 30 seconds idle and 60 seconds for a body (4 MiB at half a
    /// megabit per second).
    public init(idle: Duration = .seconds(30), requestBody: Duration = .seconds(60)) {
        self.idle = idle
        self.requestBody = requestBody
    }

    /// Creates timeouts of whole and fractional seconds, as the servers' options give them.
    public init(idleSeconds: Double, requestBodySeconds: Double) {
        self.init(idle: .milliseconds(Int(idleSeconds * 1000)), requestBody: .milliseconds(Int(requestBodySeconds * 1000)))
    }

    /// The HTTP/1.1 channel that keeps these timeouts.
    package var http1: HTTP1Channel.Configuration {
        let limit = TimeAmount(requestBody)
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestBodyDeadline(limit: limit)],
            idleTimeout: TimeAmount(idle))
    }
}
