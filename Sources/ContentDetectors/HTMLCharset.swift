#if canImport(Glibc)
internal import Glibc
#endif

/// The character set an HTML file declares: `<meta charset>`, `<meta http-equiv="Content-Type"
/// content="…; charset=…">` or, for XHTML, the XML declaration's `encoding`.
///
/// As in a browser (the WHATWG "prescan"), only the first 1024 bytes are looked at, and labels
/// are read the WHATWG way: `iso-8859-1`, `latin1` and `us-ascii` mean windows-1252, `gb2312`
/// and `gbk` mean GB18030, a UTF-16 label in an ASCII-compatible file means UTF-8. Other labels
/// are kept when iconv knows them (`koi8-r`, `windows-1251`, `euc-jp`, …).
enum HTMLCharset {
    static let prescanLength = 1024

    /// The declared charset, in ``KindDetector``'s spelling, or `nil` if there is none or it is unknown.
    static func declared(in head: [UInt8]) -> String? {
        let bytes = Array(head.prefix(prescanLength))
        guard let label = xmlEncoding(bytes) ?? metaCharset(bytes) else { return nil }
        return normalized(label)
    }

    static func normalized(_ label: String) -> String? {
        let name = label.trimmedASCIIWhitespace.lowercased()
        switch name {
        case "utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8",
            "utf-16", "utf-16le", "utf-16be", "unicode", "unicodefeff", "unicodefffe", "ucs-2", "csunicode", "iso-10646-ucs-2":
            return "utf-8"
        case "windows-1252", "cp1252", "x-cp1252", "iso-8859-1", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987",
            "latin1", "l1", "csisolatin1", "iso-ir-100", "ibm819", "cp819", "us-ascii", "ascii", "ansi_x3.4-1968":
            return "windows-1252"
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "ms932", "windows-31j", "csshiftjis":
            return "shift_jis"
        case "gb18030", "gbk", "x-gbk", "gb2312", "gb_2312", "gb_2312-80", "csgb2312", "chinese", "iso-ir-58", "csiso58gb231280":
            return "gb18030"
        case "big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5":
            return "big5"
        case "euc-kr", "cseuckr", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949", "iso-ir-149",
            "csksc56011987":
            return "euc-kr"
        default:
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
                let iconv = Transcoder.iconvName(name)
            else { return nil }
            let cd = iconv_open("UTF-8", iconv)
            if cd == iconv_t(bitPattern: -1) { return nil }
            iconv_close(cd)
            return name
        }
    }

    /// `encoding="…"` of a leading `<?xml …?>` declaration.
    private static func xmlEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)), let end = find(Array("?>".utf8), in: bytes, from: 5) else { return nil }
        return attributes(bytes, from: 5, to: end).first { $0.name == "encoding" }?.value
    }

    /// The charset of the first `<meta>` that declares one, skipping comments.
    private static func metaCharset(_ bytes: [UInt8]) -> String? {
        var i = 0
        while i < bytes.count {
            guard bytes[i] == 0x3C else {
                i += 1
                continue
            }
            if bytes[i...].starts(with: Array("<!--".utf8)) {
                guard let close = find(Array("-->".utf8), in: bytes, from: i + 4) else { return nil }
                i = close + 3
                continue
            }
            let nameEnd = i + 5
            guard nameEnd < bytes.count, String(decoding: bytes[(i + 1)..<nameEnd], as: UTF8.self).lowercased() == "meta",
                bytes[nameEnd] == 0x20 || bytes[nameEnd] == 0x2F || (bytes[nameEnd] >= 0x09 && bytes[nameEnd] <= 0x0D)
            else {
                i += 1
                continue
            }
            let close = bytes[nameEnd...].firstIndex(of: 0x3E) ?? bytes.count
            let attributes = attributes(bytes, from: nameEnd, to: close)
            if let charset = attributes.first(where: { $0.name == "charset" })?.value { return charset }
            if attributes.contains(where: { $0.name == "http-equiv" && $0.value.lowercased() == "content-type" }),
                let content = attributes.first(where: { $0.name == "content" })?.value,
                let charset = charsetParameter(content)
            {
                return charset
            }
            i = close
        }
        return nil
    }

    /// `charset=…` in a Content-Type value (`text/html; charset=Shift_JIS`), quoted or not.
    private static func charsetParameter(_ content: String) -> String? {
        let lower = content.lowercased()
        guard let range = lower.firstRange(of: "charset") else { return nil }
        var rest = lower[range.upperBound...].drop { $0 == " " || $0 == "\t" }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let inner = rest.dropFirst()
            guard let end = inner.firstIndex(of: quote) else { return nil }
            return String(inner[..<end])
        }
        let value = rest.prefix { $0 != ";" && $0 != " " && $0 != "\t" && $0 != "\"" && $0 != "'" }
        return value.isEmpty ? nil : String(value)
    }

    /// Attribute names (lowercased) and values between `from` and `to`.
    private static func attributes(_ bytes: [UInt8], from: Int, to end: Int) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var i = from
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x2F || (c >= 0x09 && c <= 0x0D) }
        while i < end {
            while i < end && isSpace(bytes[i]) { i += 1 }
            let nameStart = i
            while i < end && !isSpace(bytes[i]) && bytes[i] != 0x3D { i += 1 }
            guard i > nameStart else { break }
            let name = String(decoding: bytes[nameStart..<i], as: UTF8.self).lowercased()
            while i < end && bytes[i] == 0x20 { i += 1 }
            var value = ""
            if i < end && bytes[i] == 0x3D {
                i += 1
                while i < end && bytes[i] == 0x20 { i += 1 }
                if i < end && (bytes[i] == 0x22 || bytes[i] == 0x27) {
                    let quote = bytes[i]
                    let valueStart = i + 1
                    i = valueStart
                    while i < end && bytes[i] != quote { i += 1 }
                    value = String(decoding: bytes[valueStart..<i], as: UTF8.self)
                    i += 1
                } else {
                    let valueStart = i
                    while i < end && !isSpace(bytes[i]) { i += 1 }
                    value = String(decoding: bytes[valueStart..<i], as: UTF8.self)
                }
            }
            result.append((name, value))
        }
        return result
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var k = start
        while k + needle.count <= bytes.count {
            if bytes[k..<(k + needle.count)].elementsEqual(needle) { return k }
            k += 1
        }
        return nil
    }
}
