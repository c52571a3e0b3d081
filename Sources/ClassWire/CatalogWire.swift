import Foundation
import OpenClassKit

/// What a content tool and the class server's Catalog API send each other: the shapes of ClassKit's
/// Catalog web API. Contexts go as JSON arrays, at most ``maximumContexts`` a request, parents
/// before children; thumbnails as the image's bytes. Every call names its catalog with
/// `environment=development|production` and carries a ``CatalogToken``.
public enum CatalogWire {
    /// The most contexts one `POST /v1/contexts` may carry.
    public static let maximumContexts = 200
    /// The largest body of a contexts request, in bytes.
    public static let maximumContextsBytes = 4 << 20
    /// The largest thumbnail, in bytes: as large as a context's thumbnail may be.
    public static let maximumThumbnailBytes = ThumbnailImage.maximumBytes
    /// A thumbnail's width and height, in pixels.
    public static let thumbnailSide = 330

    /// Whether a team, key or thumbnail id is well formed: 1 to 64 ASCII letters, digits, `.`,
    /// `_` or `-` (a key id of a device key is 32 hexadecimal digits).
    public static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            }
    }

    /// The two catalogs of a publisher: one to try content in, one that teachers see.
    public enum Environment: String, Sendable, Codable, CaseIterable {
        case development, production
    }

    /// A context of the catalog: ClassKit's description of it (`data`) and what ClassKit's
    /// context does not say (`metadata`).
    public struct Context: Sendable, Equatable, Codable {
        public var data: ContextData
        public var metadata: Metadata?

        public init(data: ContextData, metadata: Metadata? = nil) {
            self.data = data
            self.metadata = metadata
        }
    }

    /// A context's `data`: the course manifest's description and the id of its thumbnail.
    public struct ContextData: Sendable, Equatable, Codable {
        public var description: CourseManifest.ContextData
        /// The thumbnail's id, as `POST /v1/thumbnails?id=` uploads it.
        public var thumbnailId: String?

        public init(_ description: CourseManifest.ContextData, thumbnailId: String? = nil) {
            self.description = description
            self.thumbnailId = thumbnailId
        }

        private enum CodingKeys: String, CodingKey { case thumbnailId }

        public init(from decoder: any Decoder) throws {
            description = try CourseManifest.ContextData(from: decoder)
            thumbnailId = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .thumbnailId)
        }

        public func encode(to encoder: any Encoder) throws {
            try description.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(thumbnailId, forKey: .thumbnailId)
        }
    }

    /// What a context's app and teachers need beyond ClassKit's context.
    public typealias Metadata = CourseManifest.Metadata

    /// The answer to a change: `POST` or `DELETE` of contexts or a thumbnail, also read again
    /// with `GET /v1/status/{id}`.
    public struct Status: Sendable, Equatable, Codable {
        /// The request's id.
        public var id: UUID
        /// `completed`: every change is made by the time the answer comes.
        public var status: String
        /// What was asked: `contexts.post`, `contexts.delete`, `thumbnails.post` or `thumbnails.delete`.
        public var operation: String
        /// How many contexts or thumbnails it changed.
        public var count: Int
        public var completedAt: Date

        public init(id: UUID, status: String = "completed", operation: String, count: Int, completedAt: Date) {
            self.id = id
            self.status = status
            self.operation = operation
            self.count = count
            self.completedAt = completedAt
        }
    }

    /// The body of `DELETE /v1/contexts` that deletes several contexts (at most 200) with
    /// their descendants; one context may be named in the query instead (`path=` per identifier).
    public struct Deletion: Sendable, Equatable, Codable {
        public var identifierPaths: [[String]]

        public init(identifierPaths: [[String]]) {
            self.identifierPaths = identifierPaths
        }
    }

    /// A page of `GET /v1/contexts`: parents before children; `next` asks for the next page.
    public struct ContextPage: Sendable, Equatable, Codable {
        public var contexts: [Context]
        /// The cursor of the next page (`after=`); nil on the last.
        public var next: String?

        public init(contexts: [Context], next: String?) {
            self.contexts = contexts
            self.next = next
        }
    }
}
