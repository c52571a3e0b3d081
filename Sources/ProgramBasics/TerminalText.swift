/// Text from other people (names, titles, file names) made safe for a terminal: control
/// characters would otherwise move the cursor, set the window title, write the clipboard (OSC 52),
/// or start a line that forges output; bidirectional overrides would show text in another order.
public enum TerminalText {
    /// The text with every control character (C0, DEL, C1) shown as `\xNN` and every bidirectional
    /// override or isolate as `\u{NNNN}`; other text is left as it is.
    public static func escaped(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if !needsEscape(scalar) {
                result.unicodeScalars.append(scalar)
            } else if scalar.value < 0x100 {
                result += "\\x" + hex(scalar.value, digits: 2)
            } else {
                result += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return result
    }

    /// Whether ``escaped(_:)`` would change the text.
    public static func needsEscaping(_ text: String) -> Bool {
        text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) && text.unicodeScalars.contains(where: needsEscape)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
