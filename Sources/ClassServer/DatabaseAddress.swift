import Foundation
internal import NIOSSL
internal import PostgresNIO

/// Where the class server's PostgreSQL database is: a `postgres://USER:PASSWORD@HOST:PORT/DATABASE`
/// address, as `DATABASE_URL` gives it.
///
/// Without `sslmode` the connection is plain, for a database on the same machine or a private
/// network; `?sslmode=require` encrypts it (the server's certificate is checked against the
/// system's authorities).
public struct DatabaseAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// Whether the connection is encrypted.
    public var requiresTLS: Bool

    /// Reads an address.
    /// - Throws: ``ServerError`` `.invalidAddress` naming what is wrong.
    public init(_ text: String) throws {
        func refuse(_ why: String) -> ServerError {
            ServerError(
                .invalidAddress,
                "the database address \(Self.redacted(text)) \(why); write it as postgres://USER:PASSWORD@HOST:5432/DATABASE")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme)
        else { throw refuse("is not a postgres:// address") }
        guard let host = components.host, !host.isEmpty else { throw refuse("names no host") }
        guard let user = components.user, !user.isEmpty else { throw refuse("names no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw refuse("names no database") }
        var requiresTLS = false
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"): requiresTLS = false
            case ("sslmode", "require"): requiresTLS = true
            default: throw refuse("has the option \(item.name)=\(item.value ?? ""), which is not sslmode=disable or sslmode=require")
            }
        }
        self.host = host
        port = components.port ?? 5432
        self.user = user
        password = components.password
        self.database = database
        self.requiresTLS = requiresTLS
    }

    /// The address without its password, for messages.
    public var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)\(requiresTLS ? "?sslmode=require" : "")"
    }

    /// A text address with its password hidden.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return "'\(text)'" }
        components.password = "…"
        return "'\(components.string ?? "")'"
    }

    /// The configuration of one connection, for the check made before the pool starts.
    var connectionConfiguration: PostgresConnection.Configuration {
        get throws {
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: requiresTLS ? .require(try NIOSSLContext(configuration: .makeClientConfiguration())) : .disable)
            configuration.options.connectTimeout = .seconds(10)
            return configuration
        }
    }

    /// The client's configuration.
    var configuration: PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database,
            tls: requiresTLS ? .require(.makeClientConfiguration()) : .disable)
        // A server that does not answer must not hang a command (see PLATFORM-NOTES: a cluster
        // that wants a password a client does not send can keep it waiting).
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }
}
