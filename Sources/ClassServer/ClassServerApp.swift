import ClassDashboard
import ClassWire
import Foundation
import Hummingbird
internal import HummingbirdCore
internal import HummingbirdTLS
import Logging
internal import NIOConcurrencyHelpers
internal import NIOSSL

/// The class server: the API students sync to and teachers read, on PostgreSQL.
///
/// Without TLS it listens on loopback only, for a reverse proxy in front of it that terminates
/// TLS; with a certificate and key it listens on any address. It takes the tokens made for its
/// public origins (``Configuration/publicOrigins``), by default the origin of the address it
/// listens on, and no other server's.
public struct ClassServerApp: Sendable {
    /// Where to listen, the TLS certificate, the addresses students use, and how long a
    /// connection may take.
    public struct Configuration: Sendable {
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// A PEM file with the certificate chain, and one with its private key; both or neither.
        public var tlsCertificate: String?
        public var tlsKey: String?
        /// The origins students and teachers reach the server at, which their tokens name
        /// (behind a reverse proxy, the proxy's address, such as `https://class.example.org`).
        /// When empty, the origin of the address listened on: `http(s)://HOST:PORT`.
        public var publicOrigins: [ServerOrigin]
        /// How long a connection may stay idle, and a request's body take to arrive.
        public var timeouts: ConnectionTimeouts

        public init(
            host: String = "127.0.0.1", port: Int = 8080, tlsCertificate: String? = nil, tlsKey: String? = nil,
            publicOrigins: [ServerOrigin] = [], timeouts: ConnectionTimeouts = ConnectionTimeouts()
        ) {
            self.host = host
            self.port = port
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
            self.publicOrigins = publicOrigins
            self.timeouts = timeouts
        }

        /// The origin of the address listened on, with the port listened on.
        func listeningOrigin(port: Int) throws -> ServerOrigin {
            let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            return try ServerOrigin("\(tlsCertificate == nil ? "http" : "https")://\(bare.contains(":") ? "[\(bare)]" : bare):\(port)")
        }
    }

    public let configuration: Configuration
    /// Where the server logs: each request's failure, with the id its refusal carries.
    public let logger: Logger

    /// Checks the configuration.
    /// - Parameters:
    ///   - configuration: Where to listen and the origins whose tokens the server takes.
    ///   - logger: Where the server logs; a request that fails is logged at `error`, one
    ///     refused at `info`.
    /// - Throws: ``ServerError`` `.invalidValue` for a port out of range, a certificate without
    ///   a key, an address other machines reach without TLS, or an address that is every
    ///   address of the machine (`0.0.0.0`, `::`) with no public origin given.
    public init(configuration: Configuration, logger: Logger) throws {
        guard (0...65_535).contains(configuration.port) else {
            throw ServerError(.invalidValue, "port \(configuration.port) is not a port (0–65535; 0 picks a free one)")
        }
        guard (configuration.tlsCertificate == nil) == (configuration.tlsKey == nil) else {
            throw ServerError(.invalidValue, "--tls-cert and --tls-key go together: give both, or neither behind a reverse proxy")
        }
        guard configuration.tlsCertificate != nil || LoopbackAddress.isLoopback(configuration.host) else {
            throw ServerError(
                .invalidValue,
                "\(configuration.host) can be reached from other machines, and without TLS students' tokens would cross the network in clear: give --tls-cert and --tls-key, or listen on 127.0.0.1 behind a reverse proxy that terminates TLS"
            )
        }
        if configuration.publicOrigins.isEmpty {
            guard !["", "0.0.0.0", "::", "[::]"].contains(configuration.host) else {
                throw ServerError(
                    .invalidValue,
                    "listening on every address (\(configuration.host)), the server cannot tell which address students reach it at, which their tokens name: give it with --public-url https://HOST[:PORT]"
                )
            }
            do {
                // Port 0 is known only once listening; any port checks the host.
                _ = try configuration.listeningOrigin(port: max(configuration.port, 1))
            } catch let error as WireError {
                throw ServerError(
                    .invalidValue, "\(error.message), or give the address students use with --public-url", underlyingError: error)
            }
        }
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until SIGINT or SIGTERM.
    /// - Parameters:
    ///   - database: The database the routes read and write.
    ///   - onListening: Called once, when the server listens, with the port and the origins
    ///     whose tokens it takes.
    public func run(database: ServerDatabase, onListening: @escaping @Sendable (_ port: Int, _ origins: [ServerOrigin]) -> Void)
        async throws
    {
        let router = Router(context: ServerRequestContext.self)
        let audiences = NIOLockedValueBox(Set(configuration.publicOrigins))
        let signer = LTISigner(database: database)
        ServerRoutes(database: database, audiences: audiences, signer: signer).add(to: router)
        let configuration = configuration
        let listening = NIOLockedValueBox(false)
        let server: HTTPServerBuilder
        if let certificate = configuration.tlsCertificate, let key = configuration.tlsKey {
            let tls: TLSConfiguration
            do {
                tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                    privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            } catch {
                throw ServerError(
                    .invalidValue, "cannot read the TLS certificate \(certificate) or key \(key) (\(error)); give PEM files",
                    underlyingError: error)
            }
            server = try .tls(.http1(configuration: configuration.timeouts.http1), tlsConfiguration: tls)
        } else {
            server = .http1(configuration: configuration.timeouts.http1)
        }
        let application = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "clsfile-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                // Checked by init: the host makes an origin with any port.
                if configuration.publicOrigins.isEmpty, let origin = try? configuration.listeningOrigin(port: port) {
                    audiences.withLockedValue { $0 = [origin] }
                }
                listening.withLockedValue { $0 = true }
                onListening(port, audiences.withLockedValue { $0 }.sorted { $0.value < $1.value })
            },
            logger: logger)
        // Scores go to the LMSes' gradebooks, and rosters come from them, beside the requests, never within one.
        let tokens = LTIAccessTokens(signer: signer)
        let scores = LTIScoreSender(database: database, tokens: tokens, logger: logger)
        let rosters = LTIRosterReader(database: database, tokens: tokens, logger: logger)
        let sending = Task { await scores.run() }
        let reading = Task { await rosters.run() }
        defer {
            sending.cancel()
            reading.cancel()
        }
        do {
            try await application.runService()
        } catch  where !listening.withLockedValue({ $0 }) {
            throw ServerError(
                .invalidValue,
                "cannot listen on \(configuration.host) port \(configuration.port): \(error); choose another --port or --host",
                underlyingError: error)
        }
    }
}
