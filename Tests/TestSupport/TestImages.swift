internal import CPNG
internal import CTurboJPEG
import Foundation

/// Image files for thumbnails: real PNG and JPEG files that decode in full, written by libpng and
/// libjpeg-turbo, and the bare headers of such files, which say a size and hold no image.
public enum TestImages {
    /// A PNG file of a size, a colour gradient written by libpng.
    public static func png(width: Int, height: Int) -> Data {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = png_uint_32(PNG_FORMAT_FLAG_COLOR) // PNG_FORMAT_RGB
        let pixels = gradient(width: width, height: height)
        var size = 0
        // The first call measures; the second writes.
        guard png_image_write_to_memory(&image, nil, &size, 0, pixels, 0, nil) != 0 else {
            preconditionFailure("libpng: \(message(of: image))")
        }
        var file = [UInt8](repeating: 0, count: size)
        guard png_image_write_to_memory(&image, &file, &size, 0, pixels, 0, nil) != 0 else {
            preconditionFailure("libpng: \(message(of: image))")
        }
        return Data(file.prefix(size))
    }

    /// A JPEG file of a size, a colour gradient written by libjpeg-turbo: baseline unless
    /// `progressive`, from RGB, or from CMYK (an Adobe YCCK file).
    public static func jpeg(width: Int, height: Int, progressive: Bool = false, cmyk: Bool = false) -> Data {
        guard let compressor = tjInitCompress() else { preconditionFailure("libjpeg-turbo: \(String(cString: tjGetErrorStr2(nil)))") }
        defer { tjDestroy(compressor) }
        var pixels = gradient(width: width, height: height)
        if cmyk {
            let rgb = pixels
            pixels = stride(from: 0, to: rgb.count, by: 3).flatMap { (index: Int) -> [UInt8] in
                [255 - rgb[index], 255 - rgb[index + 1], 255 - rgb[index + 2], 0]
            }
        }
        var file: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        defer { tjFree(file) }
        guard
            tjCompress2(
                compressor, pixels, Int32(width), 0, Int32(height), Int32((cmyk ? TJPF_CMYK : TJPF_RGB).rawValue),
                &file, &size, Int32(TJSAMP_420.rawValue), 85, progressive ? TJFLAG_PROGRESSIVE : 0) == 0, let file
        else {
            preconditionFailure("libjpeg-turbo: \(String(cString: tjGetErrorStr2(compressor)))")
        }
        return Data(bytes: file, count: Int(size))
    }

    /// The signature and IHDR chunk of a PNG file of a size, and nothing of its image.
    public static func pngHeader(width: Int, height: Int) -> Data {
        let ihdr = Data("IHDR".utf8) + bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bigEndian(13) + ihdr + bigEndian(pngCRC(ihdr))
    }

    /// The CRC of a PNG chunk's type and data (CRC-32 of ISO 3309, as zlib computes it).
    public static func pngCRC(_ bytes: Data) -> UInt32 {
        var crc = ~UInt32(0)
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A PNG length or CRC: four bytes, most significant first.
    public static func bigEndian(_ value: UInt32) -> Data {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }
    }

    /// The start of a baseline JPEG file of a size, an APP0 segment and the frame header (three
    /// components, 4:2:0), and nothing of its image.
    public static func jpegHeader(width: Int, height: Int) -> Data {
        Data(
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
                + [0xFF, 0xC0, 0x00, 0x11, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
                + [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
    }

    /// Red across, green down, RGB with 3 bytes a pixel: every part of the image differs.
    private static func gradient(width: Int, height: Int) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), 128]
            }
        }
        return pixels
    }

    private static func message(of image: png_image) -> String {
        withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
