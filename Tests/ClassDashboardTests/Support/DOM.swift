import Foundation
/// Pieces of a DOM as Chromium serializes it.
enum DOM {
    /// The element that starts with `<tag` and carries `attribute`, up to its closing tag (no nesting
    /// of the same tag is expected inside).
    static func element(_ tag: String, with attribute: String, in dom: String) -> String? {
        var searchStart = dom.startIndex
        while let open = dom.range(of: "<\(tag)", range: searchStart..<dom.endIndex) {
            guard let headEnd = dom.range(of: ">", range: open.upperBound..<dom.endIndex) else { return nil }
            if dom[open.lowerBound..<headEnd.upperBound].contains(attribute) {
                guard let close = dom.range(of: "</\(tag)>", range: headEnd.upperBound..<dom.endIndex) else { return nil }
                return String(dom[open.lowerBound..<close.upperBound])
            }
            searchStart = headEnd.upperBound
        }
        return nil
    }

    /// Every element that starts with `<tag` and carries `attribute`.
    static func elements(_ tag: String, with attribute: String, in dom: String) -> [String] {
        var found: [String] = []
        var rest = Substring(dom)
        while let element = element(tag, with: attribute, in: String(rest)), let range = rest.range(of: element) {
            found.append(element)
            rest = rest[range.upperBound...]
        }
        return found
    }

    /// The text of a fragment with its tags removed and white space collapsed.
    static func text(_ fragment: String) -> String {
        var text = ""
        var inTag = false
        for character in fragment {
            if character == "<" {
                inTag = true
            } else if character == ">" {
                inTag = false
                text.append(" ")
            } else if !inTag {
                text.append(character)
            }
        }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
