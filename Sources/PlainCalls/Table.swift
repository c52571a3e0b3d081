import ProgramBasics

/// Rows of cells as aligned columns, two spaces apart: the first `rightAligned` columns (numbers)
/// are aligned right, the others left; the last column is not padded.
///
/// Widths are kept as rows come, and ``write()`` prints line by line, so a table of 100,000 files
/// is never held as one string.
public struct Table: Sendable {
    public private(set) var rows: [[String]] = []
    private var widths: [Int] = []
    private let rightAligned: Int

    public init(rightAligned: Int = 0) {
        self.rightAligned = rightAligned
    }

    public init(_ rows: [[String]], rightAligned: Int = 0) {
        self.init(rightAligned: rightAligned)
        rows.forEach { append($0) }
    }

    /// Adds a row; control characters in its cells are shown escaped (``TerminalText``).
    public mutating func append(_ cells: [String]) {
        // Copied only when a cell changes: the caller often holds the same rows.
        var cells = cells
        if let first = cells.firstIndex(where: TerminalText.needsEscaping) {
            for index in first..<cells.count { cells[index] = TerminalText.escaped(cells[index]) }
        }
        if widths.count < cells.count { widths += Array(repeating: 0, count: cells.count - widths.count) }
        for (column, cell) in cells.enumerated() where cell.count > widths[column] {
            widths[column] = cell.count
        }
        rows.append(cells)
    }

    /// The lines, for tables small enough to hold.
    public var lines: [String] { rows.map(line) }

    /// Prints every line to standard output, a buffer at a time.
    public func write() {
        var buffer = ""
        for row in rows {
            buffer += line(row)
            buffer += "\n"
            if buffer.utf8.count >= 1 << 16 {
                print(buffer, terminator: "")
                buffer = ""
            }
        }
        print(buffer, terminator: "")
    }

    // Built with `+=`: `joined(separator:)` is not inlined, and its first call in a process
    // looks up conformances at run time, a tenth of a millisecond of a `clsfile stats`.
    private func line(_ cells: [String]) -> String {
        var text = ""
        for (column, cell) in cells.enumerated() {
            guard column < cells.count - 1 else {
                text += cell
                break
            }
            let padding = String(repeating: " ", count: widths[column] - cell.count)
            text += column < rightAligned ? padding + cell + "  " : cell + padding + "  "
        }
        return text
    }
}
