internal import NIOCore
internal import NIOHTTPTypes

/// Closes a connection whose request has not ended (its body all received) within a time of its
/// head. Hummingbird's idle timeout alone lets a body that comes a byte every few seconds hold
/// the connection forever, since each byte counts as activity.
final class RequestBodyDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?

    /// A handler that allows `limit` from a request's head to its end.
    init(limit: TimeAmount) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            deadline = context.eventLoop.assumeIsolated().scheduleTask(in: limit) {
                context.close(promise: nil)
            }
        case .body:
            break
        case .end:
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}

// Used on its channel's event loop only.
@available(*, unavailable)
extension RequestBodyDeadline: Sendable {}
