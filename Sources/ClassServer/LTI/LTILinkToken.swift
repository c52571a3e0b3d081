internal import Crypto
import Foundation

/// The one-use token a launch gives a person to tie their device's key to their LMS identity
/// (`clsfile join URL --lti TOKEN`): 20 characters that cannot be mistaken for each other when
/// copied by hand (those of ``JoinCode``), about 99 bits, kept by the server as a hash only.
enum LTILinkToken {
    /// How long a token is good for.
    static let lifetime = 15 * 60

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in JoinCode.alphabet.randomElement(using: &generator)! })
    }

    /// What the server keeps of a token: the SHA-256 of it in capitals, without spaces, so that a
    /// token typed in lower case or with spaces still matches.
    static func hash(_ token: String) -> Data {
        let normalized = token.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        return Data(SHA256.hash(data: Data(normalized.utf8)))
    }
}
