import Foundation

/// Where a page of `GET /v1/contexts` starts: after the context of this depth and key.
struct CatalogCursor {
    var depth: Int
    var key: String

    init(depth: Int, key: String) {
        self.depth = depth
        self.key = key
    }

    /// Reads a cursor as ``text`` made it.
    init(text: String) throws {
        guard text.utf8.count <= 16_384, let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":"), let depth = Int(decoded[..<colon]),
            !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ServerError(
                .invalidValue, "after=\(text.prefix(40)) is not a cursor of this server: give the next value of the page before")
        }
        self.init(depth: depth, key: String(decoded[decoded.index(after: colon)...]))
    }

    var text: String { Data("\(depth):\(key)".utf8).base64EncodedString() }
}
