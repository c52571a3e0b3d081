/// The marker that starts a list item in Markdown and plain text: `-`, `*`, `+`, or 1 to 9 digits
/// followed by `.` or `)` (CommonMark's rule), then a space or a tab.
enum ListMarker {
    /// The index just past the marker at `start` and the one space or tab after it, or nil when
    /// `line` has no list marker there.
    static func end(of line: [UInt8], from start: Int) -> Int? {
        var i = start
        guard i < line.count else { return nil }
        if line[i] == 0x2D || line[i] == 0x2A || line[i] == 0x2B {
            i += 1
        } else {
            let digits = i
            while i < line.count && line[i] >= 0x30 && line[i] <= 0x39 { i += 1 }
            guard i > digits, i - digits <= 9, i < line.count, line[i] == 0x2E || line[i] == 0x29 else { return nil }
            i += 1
        }
        guard i < line.count, line[i] == 0x20 || line[i] == 0x09 else { return nil }
        return i + 1
    }
}
