@testable import clsfile
import Foundation
import PlainCalls
import Testing

/// The hand-written JSON of `list --json` and `report --json` must be byte for byte what
/// `JSONEncoder` wrote before it (pretty, sorted keys, slashes unescaped), so that nobody reading
/// the output sees the change.
struct JSONWriterTests {
    private struct Sample: Encodable {
        var empty: [Double] = []
        var list: [Double]
        var name: String
        var nested: [[Double]]
        var none: String?
        var object: Inner
        var yes: Bool
    }

    private struct Inner: Encodable {
        var count: Int
    }

    private func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func written(_ sample: Sample) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.key("empty")
        json.beginArray()
        json.endArray()
        json.key("list")
        json.beginArray()
        sample.list.forEach { json.value($0) }
        json.endArray()
        json.member("name", sample.name)
        json.key("nested")
        json.beginArray()
        for inner in sample.nested {
            json.beginArray()
            inner.forEach { json.value($0) }
            json.endArray()
        }
        json.endArray()
        json.member("none", sample.none)
        json.key("object")
        json.beginObject()
        json.member("count", sample.object.count)
        json.endObject()
        json.member("yes", sample.yes)
        json.endObject()
        return json.text
    }

    @Test(arguments: [
        "plain", "a/b/c.txt", "quote \" and backslash \\", "lines\nand\rtabs\tend", "\u{0}\u{1}\u{8}\u{C}\u{1F}\u{7F}",
        "ünïcödé ✓ 𝄞", ""
    ])
    func stringsAndNumbersAreWrittenAsTheEncoderWritesThem(name: String) throws {
        let sample = Sample(
            list: [0, 42, -3, 0.1, 0.6666666666666666, 1e300, -2.5e-8, 1234567.125, 1e15, 1.2345678901234568e17],
            name: name, nested: [[0, 0.22], [], [1]], object: Inner(count: 7), yes: true)
        #expect(written(sample) == (try encoded(sample)))
    }

    /// `report --json` writes each file's object on the reducing thread and puts them in place
    /// later: the result must be what writing them in place gives.
    @Test func aValueWrittenApartIsIndentedWhereItIsPut() throws {
        func object(_ json: inout JSONWriter, _ index: Int) {
            json.beginObject()
            json.member("count", index)
            json.key("list")
            json.beginArray()
            json.value(Double(index) / 4)
            json.endArray()
            json.member("name", "file \(index)")
            json.endObject()
        }
        var inPlace = JSONWriter(), apart = JSONWriter()
        for json in [0, 1] {
            var writer = json == 0 ? inPlace : apart
            writer.beginObject()
            writer.key("files")
            writer.beginArray()
            for index in 0..<3 {
                if json == 0 {
                    object(&writer, index)
                } else {
                    var element = JSONWriter()
                    object(&element, index)
                    writer.insert(element.text)
                }
            }
            writer.endArray()
            writer.endObject()
            if json == 0 { inPlace = writer } else { apart = writer }
        }
        #expect(apart.text == inPlace.text)
        #expect(inPlace.text.contains("\n    {\n      \"count\" : 1,\n      \"list\" : [\n        0.25\n      ],"))
    }

    @Test func anEmptyTopLevelArrayIsWrittenAsTheEncoderWritesIt() throws {
        var json = JSONWriter()
        json.beginArray()
        json.endArray()
        #expect(json.text == (try encoded([Double]())))
    }

    @Test func valuesJSONCannotHoldAreWrittenAsNull() {
        var json = JSONWriter()
        json.beginArray()
        [Double.nan, .infinity, -.infinity].forEach { json.value($0) }
        json.endArray()
        #expect(json.text == "[\n  null,\n  null,\n  null\n]")
    }

    @Test func aTableAlignsEveryColumnButTheLast() {
        var table = Table(rightAligned: 1)
        table.append(["N", "NAME", "PATH"])
        table.append(["12345", "ü", "/a"])
        table.append(["7", "longer name", "/b/c"])
        #expect(table.lines == ["    N  NAME         PATH", "12345  ü            /a", "    7  longer name  /b/c"])
    }

    /// Fractions exact in binary, so the reference's own rounding cannot differ.
    @Test(arguments: [0.0, 1_736_758_800.25, 951_782_400.5, -1.5, 253_402_300_799.0, 978_307_200.125])
    func datesAreWrittenAsISO8601InUTC(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        let reference = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
        #expect(Formatting.iso8601(date, milliseconds: true) == reference)
        #expect(Formatting.iso8601(date) == reference.prefix(19) + "Z")
    }
}
