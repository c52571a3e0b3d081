import Foundation
import Hummingbird
import Logging
import OpenClassKit
internal import NIOConcurrencyHelpers

/// The teacher's view of the class as web pages, served from the teacher's store.
///
/// Every request reads the store afresh, so a page shows what the store holds now. The server listens
/// on loopback unless told otherwise; any other address needs an ``AccessToken``, which every request
/// must then present.
///
/// ```swift
/// let server = try DashboardServer(store: CLSDataStore(storeURL: storeURL),
///                                  configuration: .init(host: "127.0.0.1", port: 0),
///                                  logger: Logger(label: "dashboard"))
/// try await server.run { endpoint in print("Open \(endpoint.url)") }
/// ```
public struct DashboardServer: Sendable {
    /// Where to listen, the token to require, and how long a connection may take.
    public struct Configuration: Sendable {
        /// The address or host name to listen on; loopback by default.
        public var host: String
        /// The port; 0 picks a free one, which ``Endpoint/port`` then tells.
        public var port: Int
        /// The token every request must present; required for an address that is not loopback.
        public var token: AccessToken?
        /// How long a connection may stay idle, and a request's body take to arrive.
        public var timeouts: ConnectionTimeouts

        /// Creates settings.
        public init(
            host: String = "127.0.0.1", port: Int = 8765, token: AccessToken? = nil,
            timeouts: ConnectionTimeouts = ConnectionTimeouts()
        ) {
            self.host = host
            self.port = port
            self.token = token
            self.timeouts = timeouts
        }
    }

    /// Where a running server can be reached.
    public struct Endpoint: Sendable, Equatable {
        public var host: String
        /// The port listened on: the one picked when the configuration asked for 0.
        public var port: Int
        public var token: AccessToken?

        /// The dashboard's address, with `?token=` when a token is in force.
        public var url: String {
            let bare = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return "http://\(bare):\(port)/" + (token.map { "?token=\($0.value)" } ?? "")
        }
    }

    /// The store the pages are read from.
    public let store: CLSDataStore
    /// Where to listen, and the token to require.
    public let configuration: Configuration
    /// Where the server logs, such as a request that failed.
    public let logger: Logger

    /// Prepares a server; nothing listens until ``run(onListening:)``.
    /// - Parameters:
    ///   - store: The store the pages are read from.
    ///   - configuration: Where to listen, and the token to require.
    ///   - logger: Where the server logs.
    /// - Throws: ``DashboardError`` `.insecureAddress` for an address that is not loopback with no token.
    public init(store: CLSDataStore, configuration: Configuration = Configuration(), logger: Logger) throws {
        guard configuration.token != nil || LoopbackAddress.isLoopback(configuration.host) else {
            throw DashboardError(
                .insecureAddress,
                "\(configuration.host) can be reached from other machines, so the dashboard needs an access token there; give one with --token-file or CLSFILE_DASHBOARD_TOKEN, or leave it out to get a random one"
            )
        }
        guard (0...65_535).contains(configuration.port) else {
            throw DashboardError(.cannotListen, "port \(configuration.port) is not a port (0–65535; 0 picks a free one)")
        }
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    /// Listens and answers until SIGINT or SIGTERM, then stops cleanly and returns.
    /// - Parameter onListening: Called once, when the server listens, with where it can be reached.
    /// - Throws: ``DashboardError`` `.cannotListen` when the address cannot be listened on.
    public func run(onListening: @escaping @Sendable (Endpoint) -> Void) async throws {
        let router = Router()
        DashboardRoutes(store: store, token: configuration.token).add(to: router)
        let listening = ListeningFlag()
        let configuration = configuration
        let application = Application(
            router: router, server: .http1(configuration: configuration.timeouts.http1),
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port)),
            onServerRunning: { channel in
                listening.state.withLockedValue { $0 = true }
                onListening(
                    Endpoint(
                        host: configuration.host, port: channel.localAddress?.port ?? configuration.port,
                        token: configuration.token))
            },
            logger: logger)
        do {
            try await application.runService()
        } catch  where !listening.state.withLockedValue({ $0 }) {
            throw DashboardError(
                .cannotListen,
                "cannot listen on \(configuration.host) port \(configuration.port): \(error); choose another --port or --host (port 0 picks a free one)",
                underlyingError: error)
        }
    }
}

/// Whether the server got as far as listening: an error before that is an address it cannot use.
private final class ListeningFlag: Sendable {
    let state = NIOLockedValueBox(false)
}
