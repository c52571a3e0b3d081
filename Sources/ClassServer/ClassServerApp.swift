import ClassDashboard
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOConcurrencyHelpers
import NIOSSL

/// The class server: the API students sync to and teachers read, on PostgreSQL.
///
/// Without TLS it listens on loopback only, for a reverse proxy in front of it that terminates
/// TLS; with a certificate and key it listens on any address.
public struct ClassServerApp: Sendable {
    /// Where to listen, and the TLS certificate.
    public struct Configuration: Sendable {
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// A PEM file with the certificate chain, and one with its private key; both or neither.
        public var tlsCertificate: String?
        public var tlsKey: String?

        public init(host: String = "127.0.0.1", port: Int = 8080, tlsCertificate: String? = nil, tlsKey: String? = nil) {
            self.host = host
            self.port = port
            self.tlsCertificate = tlsCertificate
            self.tlsKey = tlsKey
        }
    }

    public let configuration: Configuration

    /// Checks the configuration.
    /// - Throws: ``ServerError`` `.invalidValue` for a port out of range, a certificate without
    ///   a key, or an address other machines reach without TLS.
    public init(configuration: Configuration) throws {
        guard (0...65_535).contains(configuration.port) else {
            throw ServerError(.invalidValue, "port \(configuration.port) is not a port (0–65535; 0 picks a free one)")
        }
        guard (configuration.tlsCertificate == nil) == (configuration.tlsKey == nil) else {
            throw ServerError(.invalidValue, "--tls-cert and --tls-key go together: give both, or neither behind a reverse proxy")
        }
        guard configuration.tlsCertificate != nil || LoopbackAddress.isLoopback(configuration.host) else {
            throw ServerError(.invalidValue, "\(configuration.host) can be reached from other machines, and without TLS students' tokens would cross the network in clear: give --tls-cert and --tls-key, or listen on 127.0.0.1 behind a reverse proxy that terminates TLS")
        }
        self.configuration = configuration
    }

    /// Serves until SIGINT or SIGTERM.
    /// - Parameter onListening: Called once, when the server listens, with the port.
    public func run(database: ServerDatabase, onListening: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router()
        ServerRoutes(database: database).add(to: router)
        var logger = Logger(label: "clsfile-server")
        logger.logLevel = .notice
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
                throw ServerError(.invalidValue, "cannot read the TLS certificate \(certificate) or key \(key) (\(error)); give PEM files", underlyingError: error)
            }
            server = try .tls(.http1(), tlsConfiguration: tls)
        } else {
            server = .http1()
        }
        let application = Application(
            router: router, server: server,
            configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port),
                                                    serverName: "clsfile-server"),
            onServerRunning: { channel in
                listening.withLockedValue { $0 = true }
                onListening(channel.localAddress?.port ?? configuration.port)
            },
            logger: logger)
        do {
            try await application.runService()
        } catch where !listening.withLockedValue({ $0 }) {
            throw ServerError(.invalidValue, "cannot listen on \(configuration.host) port \(configuration.port): \(error); choose another --port or --host", underlyingError: error)
        }
    }
}
