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
            throw DashboardError(.invalidToken, "the token must have at least \(Self.minimumLength) characters, only letters, digits, '-', '_', '.' and '~'; leave --token out to get a random one")
        }
        self.value = value
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
