import Dispatch

#if canImport(Glibc)
internal import Glibc
#endif

/// Plain text in any supported charset: every byte goes to the counter; checklist items are tallied.
///
/// Large UTF-8 files are split at a blank line near the middle and counted on two threads; since
/// a blank line ends every token, sentence and paragraph, the two halves' counts add up exactly.
struct PlainTextExtractor: TextExtractor {
    static let parallelThreshold: Int64 = 16 << 20

    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        if (source.kind.charset == "utf-8" || source.kind.charset == "us-ascii")
            && source.file.size >= PlainTextExtractor.parallelThreshold,
            let split = try PlainTextExtractor.paragraphBoundary(in: source.file)
        {
            try extractInParallel(source, split: split, into: &output)
            return
        }
        var counter = WordCounter()
        var done = 0, total = 0
        try source.forEachUTF8Chunk { chunk in
            counter.consume(chunk)
            ChecklistScanner.scan(chunk, done: &done, total: &total)
        }
        output[.body].counter = counter
        output.checklistDone += done
        output.checklistTotal += total
    }
}

extension PlainTextExtractor {
    /// The offset just after a blank line ("\n\n" or "\r\n\r\n") near the middle of the file.
    static func paragraphBoundary(in file: SafeFile) throws -> Int64? {
        let middle = file.size / 2
        let window = try file.bytes(at: middle, count: 1 << 20)
        var i = 0
        while i + 1 < window.count {
            if window[i] == 0x0A && window[i + 1] == 0x0A { return middle + Int64(i + 2) }
            if window[i] == 0x0A && i + 2 < window.count && window[i + 1] == 0x0D && window[i + 2] == 0x0A { return middle + Int64(i + 3) }
            i += 1
        }
        return nil
    }

    private final class Half: @unchecked Sendable {
        var counter = WordCounter()
        var done = 0
        var total = 0
        var error: Error?
    }

    func extractInParallel(_ source: DocumentSource, split: Int64, into output: inout ExtractionOutput) throws {
        let halves = [Half(), Half()]
        let ranges = [Int64(0)..<split, split..<source.file.size]
        let file = source.file
        let skipBOM = source.kind.charset == "utf-8"
        DispatchQueue.concurrentPerform(iterations: 2) { k in
            let half = halves[k]
            do {
                var first = k == 0 && skipBOM
                try file.forEachChunk(in: ranges[k]) { chunk in
                    var chunk = chunk
                    if first {
                        first = false
                        if chunk.count >= 3 && chunk[0] == 0xEF && chunk[1] == 0xBB && chunk[2] == 0xBF {
                            chunk = UnsafeRawBufferPointer(rebasing: chunk[3...])
                        }
                    }
                    half.counter.consume(chunk)
                    ChecklistScanner.scan(chunk, done: &half.done, total: &half.total)
                }
            } catch {
                half.error = error
            }
        }
        for half in halves { if let error = half.error { throw error } }
        var statistics = halves[0].counter.statistics
        statistics.add(halves[1].counter.statistics)
        output.bodyOverride = statistics
        output.checklistDone += halves[0].done + halves[1].done
        output.checklistTotal += halves[0].total + halves[1].total
    }
}

/// Finds `- [ ]` / `- [x]` items (also `*`, `+`, `1.`) at the start of lines.
enum ChecklistScanner {
    /// Scans a chunk with memchr for `[`; an item split across two chunks may be missed.
    static func scan(_ chunk: UnsafeRawBufferPointer, done: inout Int, total: inout Int) {
        guard let base = chunk.baseAddress else { return }
        var offset = 0
        let n = chunk.count
        while offset < n, let hit = memchr(base + offset, 0x5B, n - offset) {
            let i = base.distance(to: UnsafeRawPointer(hit))
            offset = i + 1
            guard i + 2 < n else { continue }
            let mark = chunk[i + 1]
            guard chunk[i + 2] == 0x5D, mark == 0x20 || mark == 0x78 || mark == 0x58 else { continue }
            if i + 3 < n && chunk[i + 3] != 0x20 && chunk[i + 3] != 0x09 && chunk[i + 3] != 0x0A && chunk[i + 3] != 0x0D { continue }
            // Walk back: one space, a list marker, then only indentation to the line start.
            var j = i - 1
            guard j >= 0, chunk[j] == 0x20 || chunk[j] == 0x09 else { continue }
            while j >= 0 && (chunk[j] == 0x20 || chunk[j] == 0x09) { j -= 1 }
            guard j >= 0 else { continue }
            let m = chunk[j]
            if m == 0x2D || m == 0x2A || m == 0x2B {
                j -= 1
            } else if m == 0x2E || m == 0x29 {
                j -= 1
                let digitsEnd = j
                while j >= 0 && chunk[j] >= 0x30 && chunk[j] <= 0x39 { j -= 1 }
                guard j < digitsEnd else { continue }
            } else {
                continue
            }
            while j >= 0 && (chunk[j] == 0x20 || chunk[j] == 0x09 || chunk[j] == 0x3E) { j -= 1 }
            guard j < 0 || chunk[j] == 0x0A || chunk[j] == 0x0D else { continue }
            total += 1
            if mark != 0x20 { done += 1 }
        }
    }

    /// If `line` (from `start`) is a checklist item, returns whether it is done and where its text starts.
    static func item(_ line: [UInt8], from start: Int) -> (done: Bool, textStart: Int)? {
        guard var i = ListMarker.end(of: line, from: start) else { return nil }
        while i < line.count && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
        guard i + 2 < line.count, line[i] == 0x5B, line[i + 2] == 0x5D else { return nil }
        let mark = line[i + 1]
        guard mark == 0x20 || mark == 0x78 || mark == 0x58 else { return nil }
        if i + 3 < line.count && line[i + 3] != 0x20 && line[i + 3] != 0x09 { return nil }
        return (mark != 0x20, min(line.count, i + 3))
    }
}
