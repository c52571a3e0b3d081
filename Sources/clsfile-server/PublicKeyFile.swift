import ClassServer
import Foundation

/// A file of public keys in PEM (`-----BEGIN PUBLIC KEY-----`), as `clsfile role --public-key`
/// and `clsfile catalog keygen` write them: what `teacher add` and `publisher add` read.
enum PublicKeyFile {
    /// The PEM blocks of public keys in the file, in order.
    /// - Throws: ``ServerError`` `.notFound` when the file cannot be read.
    static func blocks(in path: String) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ServerError(.notFound, "cannot read the public key file \(path): \(error.localizedDescription)")
        }
        let begin = "-----BEGIN PUBLIC KEY-----", end = "-----END PUBLIC KEY-----"
        var blocks: [String] = [], rest = text[...]
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) {
            blocks.append(String(rest[start.lowerBound..<stop.upperBound]))
            rest = rest[stop.upperBound...]
        }
        return blocks
    }

    /// How many keys a file holds, in words: "no P-256 public key", "one …", "3 PEM blocks".
    static func describe(_ count: Int) -> String {
        switch count {
        case 0: "no P-256 public key in PEM"
        case 1: "one P-256 public key in PEM"
        default: "\(count) PEM blocks"
        }
    }
}
