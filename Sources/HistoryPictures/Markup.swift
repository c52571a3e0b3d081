/// Text made safe for HTML and SVG. The dashboard's pages and the history's pictures escape with it
/// alike.
package enum Markup {
    /// The text with `&`, `<`, `>`, `"` and `'` as character references: safe in element content
    /// and in a quoted attribute value.
    package static func escaped(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
