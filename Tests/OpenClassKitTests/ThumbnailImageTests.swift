import Foundation
import Testing
import TestSupport
@testable import OpenClassKit

/// A context's thumbnail is kept only when the whole image decodes: real PNG and JPEG files
/// (written by libpng and libjpeg-turbo) are taken; damaged ones, whose headers alone look right,
/// are refused with what failed and what to give instead.
struct ThumbnailImageTests {
    /// What every refusal of a damaged image ends with.
    static let wanted = "give the bytes of a PNG or JPEG file that opens in an image viewer"

    /// `count` seeded random bytes.
    static func noise(_ count: Int, seed: UInt64 = 7) -> Data {
        var generator = SplitMix(seed: seed)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The PNG file's chunks: type, the offset of its data, and its length.
    static func chunks(of png: Data) -> [(type: String, offset: Int, length: Int)] {
        var chunks: [(String, Int, Int)] = []
        var offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            chunks.append((String(decoding: png[offset + 4..<offset + 8], as: UTF8.self), offset + 8, length))
            offset += 12 + length
        }
        return chunks
    }

    /// A PNG file whose IDAT holds other data, with a right CRC: only decoding finds it wrong.
    static func png(_ png: Data, withIDAT data: Data) -> Data {
        let idat = chunks(of: png).first { $0.type == "IDAT" }!
        let chunk = Data("IDAT".utf8) + data
        return png.prefix(idat.offset - 8) + TestImages.bigEndian(UInt32(data.count)) + chunk
            + TestImages.bigEndian(TestImages.pngCRC(chunk))
            + png.suffix(from: idat.offset + idat.length + 4)
    }

    /// A JPEG file whose entropy-coded data, after its scan header, is replaced: headers and
    /// frame intact, then junk, then the end-of-image marker.
    static func jpeg(_ jpeg: Data, withScan data: Data) -> Data {
        let bytes = [UInt8](jpeg)
        let scan = (2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }!
        let length = Int(bytes[scan + 2]) << 8 | Int(bytes[scan + 3])
        return jpeg.prefix(scan + 2 + length) + data + Data([0xFF, 0xD9])
    }

    /// `image` with one bit of its byte at `offset` flipped.
    static func flipping(_ image: Data, at offset: Int) -> Data {
        var image = image
        image[offset] ^= 0x01
        return image
    }

    /// The first two thirds of a file.
    static func cut(_ image: Data) -> Data { image.prefix(image.count * 2 / 3) }

    static let png330 = TestImages.png(width: 330, height: 330), png80 = TestImages.png(width: 80, height: 80)
    static let jpeg330 = TestImages.jpeg(width: 330, height: 330), jpeg201 = TestImages.jpeg(width: 201, height: 99)
    static let progressive = TestImages.jpeg(width: 330, height: 330, progressive: true)
    static let cmyk = TestImages.jpeg(width: 120, height: 120, cmyk: true)

    /// A real image is taken whole and refused once damaged, with the decoder's complaint.
    @Test(arguments: [
        (
            "PNG 330×330, cut short in its IDAT", png330, png330.prefix(400),
            "the thumbnail's PNG data is damaged (libpng: read beyond end of data)"
        ),
        (
            "PNG 80×80, its IDAT junk with a right CRC", png80, png(png80, withIDAT: noise(3_000)),
            "the thumbnail's PNG data is damaged (libpng: IDAT: "
        ),
        (
            "PNG 80×80, a wrong CRC", png80,
            flipping(png80, at: chunks(of: png80).first { $0.type == "IDAT" }.map { $0.offset + $0.length }!),
            "the thumbnail's PNG data is damaged (libpng: IDAT: CRC error)"
        ),
        (
            "JPEG 330×330, its scan junk", jpeg330, jpeg(jpeg330, withScan: noise(20_000)),
            "the thumbnail's JPEG data is damaged (libjpeg-turbo: "
        ),
        (
            "JPEG 201×99 (not whole blocks), cut short", jpeg201, cut(jpeg201),
            "the thumbnail's JPEG data is damaged (libjpeg-turbo: Premature end of JPEG file)"
        ),
        ("progressive JPEG, cut short", progressive, cut(progressive), "the thumbnail's JPEG data is damaged (libjpeg-turbo: "),
        ("CMYK JPEG, its scan junk", cmyk, jpeg(cmyk, withScan: noise(5_000)), "the thumbnail's JPEG data is damaged (libjpeg-turbo: ")
    ])
    func aRealImageIsTakenWholeAndRefusedDamaged(_ name: String, _ whole: Data, _ damaged: Data, _ message: String) throws {
        #expect(ThumbnailImage.problem(with: whole) == nil, "\(name), whole")
        let problem = try #require(ThumbnailImage.problem(with: damaged), "\(name) was taken")
        #expect(problem.hasPrefix(message) && problem.hasSuffix(Self.wanted), "\(name): \(problem)")
    }

    /// Bytes whose header alone is right, or that are no image, are refused.
    @Test(arguments: [
        (
            "PNG header of 100×100, then junk", TestImages.pngHeader(width: 100, height: 100) + noise(2_000),
            "the thumbnail's PNG data is damaged (libpng: "
        ),
        (
            "JPEG frame header of 330×330, then junk", TestImages.jpegHeader(width: 330, height: 330) + noise(20_000),
            "the thumbnail's JPEG data is damaged (libjpeg-turbo: "
        ),
        ("no bytes", Data(), "the thumbnail is not a PNG or JPEG image (0 bytes)"),
        ("random bytes", noise(5_000), "the thumbnail is not a PNG or JPEG image (5000 bytes)")
    ])
    func bytesThatAreNoWholeImageAreRefused(_ name: String, _ image: Data, _ message: String) throws {
        let problem = try #require(ThumbnailImage.problem(with: image), "\(name) was taken")
        #expect(problem.hasPrefix(message) && problem.hasSuffix(Self.wanted), "\(name): \(problem)")
    }

    @Test func aTooLargeImageIsRefusedBeforeItIsDecoded() throws {
        // 100 × 100 by its header, then more than 1 MiB that would not decode: the size refuses it.
        let padded = TestImages.pngHeader(width: 100, height: 100) + Self.noise(ThumbnailImage.maximumBytes)
        let problem = try #require(ThumbnailImage.problem(with: padded))
        #expect(problem.hasPrefix("the thumbnail is \(padded.count) bytes; at most 1048576 (1 MiB)"), "\(problem)")
        // A header of 40,000 × 40,000 pixels is refused by its sides, whatever follows it.
        let huge = try #require(ThumbnailImage.problem(with: TestImages.jpegHeader(width: 40_000, height: 40_000) + Self.noise(100)))
        #expect(huge.hasPrefix("the thumbnail is 40000×40000 pixels; each side must be 80 to 330"), "\(huge)")
    }
}
