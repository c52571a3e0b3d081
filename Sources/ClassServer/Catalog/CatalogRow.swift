import ClassWire
import Foundation
import OpenClassKit

/// A context as the catalog keeps it: its identifier path as a key (the path in JSON, so that a
/// context's descendants are the keys that start with its key less the closing bracket), its
/// depth, and its data and metadata in JSON.
struct CatalogRow {
    var path: [String]
    var key: String
    var parentKey: String?
    var depth: Int
    var data: String
    /// The metadata in JSON; empty when there is none.
    var metadata: String
    /// The thumbnail's id; empty when there is none.
    var thumbnail: String

    init(_ context: CatalogWire.Context) throws {
        try CatalogCheck.check(context)
        path = context.data.description.identifierPath
        key = try Self.key(of: path)
        parentKey = path.count > 1 ? try Self.key(of: Array(path.dropLast())) : nil
        depth = path.count
        data = String(decoding: try Self.encoder.encode(context.data), as: UTF8.self)
        metadata = try context.metadata.map { String(decoding: try Self.encoder.encode($0), as: UTF8.self) } ?? ""
        thumbnail = context.data.thumbnailId ?? ""
    }

    /// The key of an identifier path.
    static func key(of path: [String]) throws -> String {
        String(decoding: try encoder.encode(path), as: UTF8.self)
    }

    /// What the keys of a context's descendants start with.
    static func childPrefix(_ key: String) -> String {
        String(key.dropLast()) + ","
    }

    /// A context read back from its stored JSON.
    static func context(data: String, metadata: String?) throws -> CatalogWire.Context {
        do {
            return CatalogWire.Context(
                data: try JSONDecoder().decode(CatalogWire.ContextData.self, from: Data(data.utf8)),
                metadata: try metadata.map { try JSONDecoder().decode(CatalogWire.Metadata.self, from: Data($0.utf8)) })
        } catch {
            throw ServerError(.database, "a stored catalog context cannot be read (\(error)); it was left as it is")
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
