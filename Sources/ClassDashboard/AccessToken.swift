import Foundation

/// The secret a browser must show when the dashboard is reachable from other machines.
public struct AccessToken: Sendable, Equatable, CustomStringConvertible {
    /// The token's text, as it goes in `Authorization: Bearer …` or `?token=…`.
    public let value: String

    /// The fewest characters a token given on the command line may have.
    public static let minimumLength = 16

    /// Wraps a token chosen by the person running the dashboard.
    /// - Throws: ``DashboardError`` `.invalidToken` when it is shorter than ``minimumLength`` or has
    ///   characters other than letters, digits, `-`, `_`, `.` and `~` (which need no escaping in an address).
    public init(_ value: String) throws {
        let allowed = value.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.~".unicodeScalars.contains(scalar))
        }
        guard value.count >= Self.minimumLength, allowed else {
            throw DashboardError(
                .invalidToken,
                "the token must have at least \(Self.minimumLength) characters, only letters, digits, '-', '_', '.' and '~' (or give none, to get a random one)"
            )
        }
        self.value = value
    }

    /// Reads a token from a file, such as the one `clsfile serve --token-file` names: its text,
    /// without the white space around it.
    /// - Throws: ``DashboardError`` `.invalidToken` when the file cannot be read, is larger than
    ///   4 KiB, can be read by other users than its owner (its mode must be 0600 or 0400), or
    ///   holds no valid token.
    public init(contentsOf file: URL) throws {
        func refuse(_ why: String, _ error: (any Error)? = nil) -> DashboardError {
            DashboardError(.invalidToken, "the token file \(file.path) \(why)", underlyingError: error)
        }
        let attributes: [FileAttributeKey: Any]
        let data: Data
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            guard (attributes[.size] as? Int ?? 0) <= 4096 else { throw refuse("is larger than 4 KiB: it should hold the token alone") }
            data = try Data(contentsOf: file)
        } catch let error as DashboardError {
            throw error
        } catch {
            throw refuse("cannot be read (\(error.localizedDescription)): write the token in it, readable by you alone (chmod 600)", error)
        }
        if let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw refuse(
                "can be read by other users (mode \(String(mode & 0o777, radix: 8))): make it yours alone with chmod 600 \(file.path)")
        }
        do {
            try self.init(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch let error as DashboardError {
            throw refuse("does not hold a token: \(error.message)")
        }
    }

    private init(unchecked value: String) {
        self.value = value
    }

    /// A new random token: 32 bytes from the system's secure random source, in unpadded base64url.
    public static func random() -> AccessToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
        var text = String.UnicodeScalarView()
        var bits = 0, buffer = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                text.append(alphabet[(buffer >> bits) & 0x3F])
            }
        }
        if bits > 0 { text.append(alphabet[(buffer << (6 - bits)) & 0x3F]) }
        return AccessToken(unchecked: String(text))
    }

    /// Whether a presented token is this one, in time that depends on the length of this token only,
    /// so that the time taken tells nothing about how much of a guess was right.
    public func matches(_ presented: some StringProtocol) -> Bool {
        let expected = Array(value.utf8), given = Array(presented.utf8)
        var difference: UInt8 = expected.count == given.count ? 0 : 1
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    /// The token is a secret: it is not printed by accident in logs or interpolations.
    public var description: String { "AccessToken(…)" }
}
