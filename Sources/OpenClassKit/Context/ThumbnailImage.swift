import Foundation

/// The format and size of a context's thumbnail, read from the image's own header: PNG or JPEG.
/// Not part of ClassKit.
public enum ThumbnailImage {
    /// The smallest and largest side a context's thumbnail may have, in pixels.
    static let sides = 80...330

    /// Width and height of a PNG or JPEG image; nil for anything else.
    static func size(of data: Data) -> (width: Int, height: Int)? {
        format(of: data).map { ($0.width, $0.height) }
    }

    /// The media type (`image/png` or `image/jpeg`), width and height a PNG or JPEG image's
    /// header gives; nil for anything else.
    public static func format(of data: Data) -> (mediaType: String, width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(64 * 1024))
        func bigEndian(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= bytes.count else { return nil }
            return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), bytes.count >= 24,
           bytes[12..<16].elementsEqual(Array("IHDR".utf8)) {
            guard let width = bigEndian(16, 4), let height = bigEndian(20, 4) else { return nil }
            return ("image/png", width, height)
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        // JPEG: walk the segments to the first start-of-frame, which holds the size.
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }
            guard let length = bigEndian(offset + 2, 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(offset + 5, 2), let width = bigEndian(offset + 7, 2) else { return nil }
                return ("image/jpeg", width, height)
            }
            offset += 2 + length
        }
        return nil
    }

    /// Why a thumbnail cannot be used; nil when it can.
    static func problem(with data: Data) -> String? {
        guard let (width, height) = size(of: data) else {
            return "the thumbnail is not a PNG or JPEG image (\(data.count) bytes); give the bytes of a PNG or JPEG file"
        }
        guard sides.contains(width), sides.contains(height) else {
            return "the thumbnail is \(width)×\(height) pixels; each side must be \(sides.lowerBound) to \(sides.upperBound)"
        }
        return nil
    }
}
