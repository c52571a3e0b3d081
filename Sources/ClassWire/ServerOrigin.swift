import Foundation

/// A class server's origin: the scheme, host and port of the address a student or teacher gave
/// it, as every ``DeviceToken`` names it in its audience claim (`aud`).
///
/// The origin is written one way for each server, so that a token and a server compare it as
/// plain text: the scheme and host in lowercase, an IPv6 host in brackets, and the port always
/// written, the default one too (80 for `http`, 443 for `https`); a path, query, user or
/// fragment of the address is left out.
///
/// ```swift
/// let origin = try ServerOrigin("HTTPS://Class.Example.org/")
/// print(origin)   // https://class.example.org:443
/// ```
///
/// Two names of one machine are two origins (`http://127.0.0.1:8080` and
/// `http://localhost:8080`): a server takes the tokens made for the origins it is told are its
/// own, and no other.
public struct ServerOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The origin as `SCHEME://HOST:PORT`.
    public let value: String

    /// The origin of an address.
    /// - Parameter text: An `http` or `https` address with a host, such as `https://class.example.org`.
    /// - Throws: ``WireError`` `.invalidValue` for an address that is not http(s) with a host, or
    ///   whose port is out of range.
    public init(_ text: String) throws {
        func refuse() -> WireError {
            WireError(.invalidValue, "'\(text.prefix(200))' is not a class server's address: give it as http(s)://HOST[:PORT]")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let defaultPort = ["http": 80, "https": 443][scheme]
        else { throw refuse() }
        // URLComponents gives an IPv6 host with its brackets, and percent-encoding as written.
        var host = (components.percentEncodedHost ?? "").lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw refuse() }
        let port = components.port ?? defaultPort
        guard (1...65_535).contains(port) else { throw refuse() }
        value = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The origin of an address.
    /// - Throws: ``WireError`` `.invalidValue` for an address that is not http(s) with a host.
    public init(_ url: URL) throws {
        try self.init(url.absoluteString)
    }

    public var description: String { value }
}
