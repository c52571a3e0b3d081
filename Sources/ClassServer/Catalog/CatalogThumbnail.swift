import ClassWire
import Foundation
import OpenClassKit

/// A thumbnail's image: PNG or JPEG, 330 × 330 pixels.
public struct CatalogThumbnail: Sendable, Equatable {
    /// `image/png` or `image/jpeg`.
    public var mediaType: String
    public var bytes: Data

    init(mediaType: String, bytes: Data) {
        self.mediaType = mediaType
        self.bytes = bytes
    }

    /// Checks an uploaded image: its bytes must be the PNG or JPEG its `Content-Type` says, 330 × 330,
    /// and every pixel of it must decode (libpng or libjpeg-turbo decodes it), as teachers' browsers show it.
    /// - Throws: ``ServerError`` `.invalidThumbnail` saying what is wrong.
    public init(checking bytes: Data, contentType: String?) throws {
        let side = CatalogWire.thumbnailSide
        let declared = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let declared, ["image/png", "image/jpeg"].contains(declared) else {
            throw ServerError(
                .invalidThumbnail,
                "a thumbnail is PNG or JPEG: send it with Content-Type image/png or image/jpeg, not \(contentType?.prefix(60) ?? "none")")
        }
        guard let (format, width, height) = ThumbnailImage.format(of: bytes) else {
            throw ServerError(
                .invalidThumbnail, "the thumbnail is not a PNG or JPEG image (its first bytes say neither, or it is cut short)")
        }
        guard format == declared else {
            throw ServerError(.invalidThumbnail, "the thumbnail's bytes are \(format), but Content-Type says \(declared)")
        }
        guard width == side, height == side else {
            throw ServerError(
                .invalidThumbnail, "the thumbnail is \(width)×\(height) pixels; thumbnails are \(side)×\(side): scale it first")
        }
        if let problem = ThumbnailImage.problem(with: bytes) {
            throw ServerError(.invalidThumbnail, problem)
        }
        self.init(mediaType: format, bytes: bytes)
    }
}
