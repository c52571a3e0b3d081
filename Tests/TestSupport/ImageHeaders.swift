import Foundation

/// The first bytes of image files of a given size: enough for a thumbnail's type and size to be
/// read, as OpenClassKit reads them.
public enum ImageHeaders {
    /// The header of a PNG file of a given size: enough for its size to be read.
    public static func png(width: Int, height: Int) -> Data {
        func bigEndian(_ value: Int) -> [UInt8] { (0..<4).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) } }
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
                    + bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0])
    }

    /// The start of a baseline JPEG file of a given size: an APP0 segment, then the frame header.
    public static func jpeg(width: Int, height: Int) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
             + [0xFF, 0xC0, 0x00, 0x11, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3])
    }
}
