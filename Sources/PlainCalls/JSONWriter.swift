/// Pretty JSON written as it is made, laid out exactly as `JSONEncoder` lays it out with
/// `.prettyPrinted`, `.sortedKeys` and `.withoutEscapingSlashes` (two-space indents, `"key" : value`,
/// an empty container as `[` and `]` with an empty line between).
///
/// Reports of 100,000 files are written with it: `JSONEncoder` holds the whole document twice
/// and spends seconds on it. Callers give an object's keys in sorted order; a nil value leaves
/// its key out, as a synthesized `Encodable` does.
public struct JSONWriter: Sendable {
    /// What was written and not yet flushed, as UTF-8: appending bytes costs a fraction of
    /// appending to a `String`.
    private var bytes: [UInt8] = []
    /// What was written and not yet flushed.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
    /// For each open container, whether it has an element yet.
    private var filled: [Bool] = []
    /// True between a key and its value.
    private var afterKey = false

    public init() {}

    /// Puts in, as the next value, the ``text`` of another writer: a value written apart (on
    /// another thread, say) at no depth, indented here to where it lands. Held apart, values
    /// carry no indentation, which in a report of 100,000 files is megabytes.
    public mutating func insert(_ written: String) {
        startValue()
        for byte in written.utf8 {
            bytes.append(byte)
            if byte == UInt8(ascii: "\n") { bytes += repeatElement(UInt8(ascii: " "), count: 2 * filled.count) }
        }
    }

    /// Starts an object, as a value or as an array's element.
    public mutating func beginObject() { open("{") }

    public mutating func endObject() { close("}") }

    /// Starts an array, as a value or as an array's element.
    public mutating func beginArray() { open("[") }

    public mutating func endArray() { close("]") }

    /// Starts an object member; its value follows.
    public mutating func key(_ name: String) {
        startElement()
        writeString(name)
        append(" : ")
        afterKey = true
    }

    public mutating func value(_ string: String) {
        startValue()
        writeString(string)
    }

    /// A number as `JSONEncoder` writes it: the shortest form that reads back the same, without
    /// a trailing `.0`. A value JSON cannot hold (NaN, ±infinity), which only a damaged store
    /// gives, is written as `null` rather than failing the whole report.
    public mutating func value(_ number: Double) {
        startValue()
        guard number.isFinite else { return append("null") }
        let written = number.description
        bytes += written.utf8.dropLast(written.hasSuffix(".0") ? 2 : 0)
    }

    public mutating func value(_ number: Int) {
        startValue()
        append(String(number))
    }

    public mutating func value(_ flag: Bool) {
        startValue()
        append(flag ? "true" : "false")
    }

    /// A member whose value is a string; left out when nil.
    public mutating func member(_ name: String, _ string: String?) {
        guard let string else { return }
        key(name)
        value(string)
    }

    /// A member whose value is a number; left out when nil.
    public mutating func member(_ name: String, _ number: Double?) {
        guard let number else { return }
        key(name)
        value(number)
    }

    public mutating func member(_ name: String, _ number: Int) {
        key(name)
        value(number)
    }

    public mutating func member(_ name: String, _ flag: Bool?) {
        guard let flag else { return }
        key(name)
        value(flag)
    }

    /// A member whose value is an array of strings; left out when nil.
    public mutating func member(_ name: String, _ strings: [String]?) {
        guard let strings else { return }
        key(name)
        beginArray()
        strings.forEach { value($0) }
        endArray()
    }

    /// Writes what was made so far to standard output, once it is large enough to be worth a write.
    public mutating func flush(atLeast bytes: Int = 0) {
        guard self.bytes.count >= max(bytes, 1) else { return }
        print(text, terminator: "")
        self.bytes.removeAll(keepingCapacity: true)
    }

    // MARK: Layout

    private mutating func append(_ string: String) {
        bytes += string.utf8
    }

    private mutating func newLineAndIndent() {
        bytes.append(UInt8(ascii: "\n"))
        bytes += repeatElement(UInt8(ascii: " "), count: 2 * filled.count)
    }

    private mutating func open(_ bracket: String) {
        startValue()
        append(bracket)
        filled.append(false)
    }

    private mutating func close(_ bracket: String) {
        let hadElements = filled.removeLast()
        if !hadElements { bytes.append(UInt8(ascii: "\n")) }
        newLineAndIndent()
        append(bracket)
    }

    /// Before a value: in an array it is an element, after a key it follows on the same line.
    private mutating func startValue() {
        guard !afterKey else {
            afterKey = false
            return
        }
        startElement()
    }

    private mutating func startElement() {
        guard !filled.isEmpty else { return }
        if filled[filled.count - 1] { bytes.append(UInt8(ascii: ",")) }
        filled[filled.count - 1] = true
        newLineAndIndent()
    }

    /// A string with the escapes `JSONEncoder` uses: quote, backslash and control characters.
    private mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            case UInt8(ascii: "\t"): append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case ..<0x20:
                let hex = String(byte, radix: 16)
                append("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
