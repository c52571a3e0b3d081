internal import CPNG
internal import CTurboJPEG
import Foundation

/// The format and size of a context's thumbnail, read from the image's own header: PNG or JPEG;
/// and whether the whole image decodes, which libpng and libjpeg-turbo decide. Not part of ClassKit.
public enum ThumbnailImage {
    /// The smallest and largest side a context's thumbnail may have, in pixels.
    static let sides = 80...330

    /// The largest thumbnail, in bytes. A PNG or JPEG of 330 × 330 pixels takes far less; the limit
    /// bounds what a decoder reads, as `sides` bounds the pixels it makes.
    public static let maximumBytes = 1 << 20

    /// What a thumbnail is for, at the end of a message that refuses it.
    static let wanted = "give the bytes of a PNG or JPEG file that opens in an image viewer"

    /// Width and height of a PNG or JPEG image; nil for anything else.
    static func size(of data: Data) -> (width: Int, height: Int)? {
        format(of: data).map { ($0.width, $0.height) }
    }

    /// The media type (`image/png` or `image/jpeg`), width and height a PNG or JPEG image's
    /// header gives; nil for anything else. Only the header is read: a thumbnail is checked, and
    /// decoded in full, when its context is saved.
    public static func format(of data: Data) -> (mediaType: String, width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(64 * 1024))
        func bigEndian(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= bytes.count else { return nil }
            return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), bytes.count >= 24,
            bytes[12..<16].elementsEqual(Array("IHDR".utf8))
        {
            guard let width = bigEndian(16, 4), let height = bigEndian(20, 4) else { return nil }
            return ("image/png", width, height)
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        // JPEG: walk the segments to the first start-of-frame, which holds the size.
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            guard let length = bigEndian(offset + 2, 2), length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = bigEndian(offset + 5, 2), let width = bigEndian(offset + 7, 2) else { return nil }
                return ("image/jpeg", width, height)
            }
            offset += 2 + length
        }
        return nil
    }

    /// Why a thumbnail cannot be used; nil when it can: a PNG or JPEG of `sides` pixels a side
    /// and at most ``maximumBytes``, whose every pixel decodes.
    ///
    /// The header is read first and nothing larger is decoded. A warning of libjpeg-turbo (data
    /// cut short, bytes where a marker should be) counts as damage; libpng's warnings (about an
    /// ancillary chunk it skips) do not, as image viewers show those images.
    package static func problem(with data: Data) -> String? {
        guard let (mediaType, width, height) = format(of: data) else {
            return "the thumbnail is not a PNG or JPEG image (\(data.count) bytes); \(wanted)"
        }
        guard sides.contains(width), sides.contains(height) else {
            return "the thumbnail is \(width)×\(height) pixels; each side must be \(sides.lowerBound) to \(sides.upperBound)"
        }
        guard data.count <= maximumBytes else {
            return
                "the thumbnail is \(data.count) bytes; at most \(maximumBytes) (1 MiB): save the \(width)×\(height) image again without extra data"
        }
        let (format, decoded) = mediaType == "image/png" ? ("PNG", decodedPNG(data)) : ("JPEG", decodedJPEG(data))
        switch decoded {
        case .failure(let failure):
            return "the thumbnail's \(format) data is damaged (\(failure.message)); \(wanted)"
        // The header walk above and the decoder are two readers of one file: the size checked
        // must be the size decoded.
        case .success(let size) where size != (width, height):
            return
                "the thumbnail's \(format) header says \(width)×\(height) pixels, but its data is \(size.width)×\(size.height); \(wanted)"
        case .success:
            return nil
        }
    }

    /// What a decoder said when it failed, after the decoder's name.
    private struct DecodingFailure: Error {
        var message: String
    }

    /// Decodes every pixel of a PNG image with libpng's simplified API; the image's size.
    private static func decodedPNG(_ data: Data) -> Result<(width: Int, height: Int), DecodingFailure> {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        func failure() -> Result<(width: Int, height: Int), DecodingFailure> {
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return .failure(DecodingFailure(message: "libpng: \(message)"))
        }
        // libpng reads from the caller's memory until png_image_finish_read returns.
        return data.withUnsafeBytes { bytes in
            guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else { return failure() }
            let width = Int(image.width), height = Int(image.height)
            // Its sides were checked from the same header; the buffer is at most 330 × 330 × 4 bytes.
            guard sides.contains(width), sides.contains(height) else { return .success((width, height)) }
            image.format = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA) // PNG_FORMAT_RGBA, a macro Swift does not import
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            let finished = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }
            return finished != 0 ? .success((width, height)) : failure()
        }
    }

    /// Decodes every pixel of a JPEG image with libjpeg-turbo (TurboJPEG), stopping at its first
    /// warning and after 500 progressive scans; the image's size.
    private static func decodedJPEG(_ data: Data) -> Result<(width: Int, height: Int), DecodingFailure> {
        guard let decompressor = tjInitDecompress() else {
            return .failure(DecodingFailure(message: "libjpeg-turbo did not start: \(String(cString: tjGetErrorStr2(nil)))"))
        }
        defer { tjDestroy(decompressor) }
        func failure() -> Result<(width: Int, height: Int), DecodingFailure> {
            .failure(DecodingFailure(message: "libjpeg-turbo: \(String(cString: tjGetErrorStr2(decompressor)))"))
        }
        return data.withUnsafeBytes { bytes in
            let jpeg = bytes.bindMemory(to: UInt8.self)
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(decompressor, jpeg.baseAddress, UInt(jpeg.count), &width, &height, &subsampling, &colorspace) == 0
            else {
                return failure()
            }
            guard sides.contains(Int(width)), sides.contains(Int(height)) else { return .success((Int(width), Int(height))) }
            // CMYK and YCCK images decode only to CMYK; the others to RGB. Either takes at most 4 bytes a pixel.
            let isCMYK = [TJCS_CMYK.rawValue, TJCS_YCCK.rawValue].contains(UInt32(colorspace))
            let pixelFormat = Int32((isCMYK ? TJPF_CMYK : TJPF_RGB).rawValue)
            var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 4)
            let decoded = pixels.withUnsafeMutableBufferPointer {
                tjDecompress2(
                    decompressor, jpeg.baseAddress, UInt(jpeg.count), $0.baseAddress, width, 0, height, pixelFormat,
                    TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
            }
            return decoded == 0 ? .success((Int(width), Int(height))) : failure()
        }
    }
}
