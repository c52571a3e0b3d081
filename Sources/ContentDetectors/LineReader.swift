/// Splits UTF-8 chunks into lines (LF, CRLF or CR), with lines capped at 1 MiB so memory stays bounded.
struct LineReader {
    static let maximumLine = 1 << 20
    private var line: [UInt8] = []
    private var lastWasCR = false

    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        var start = 0
        var i = 0
        let n = chunk.count
        while i < n {
            let c = chunk[i]
            if c == 0x0A || c == 0x0D {
                if c == 0x0A && lastWasCR && i == start && line.isEmpty {
                    // LF of a CRLF pair.
                    lastWasCR = false
                    i += 1
                    start = i
                    continue
                }
                try flush(UnsafeRawBufferPointer(rebasing: chunk[start..<i]), body)
                lastWasCR = c == 0x0D
                i += 1
                start = i
                continue
            }
            lastWasCR = false
            i += 1
        }
        if start < n {
            line.append(contentsOf: chunk[start..<n])
            if line.count >= LineReader.maximumLine {
                try line.withUnsafeBytes { try body($0) }
                line.removeAll(keepingCapacity: true)
            }
        }
    }

    private mutating func flush(_ tail: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if line.isEmpty {
            try body(tail)
        } else {
            line.append(contentsOf: tail)
            try line.withUnsafeBytes { try body($0) }
            line.removeAll(keepingCapacity: true)
        }
    }

    mutating func finish(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        if !line.isEmpty {
            try line.withUnsafeBytes { try body($0) }
            line.removeAll()
        }
    }
}
