/// Markdown: front matter, fenced and indented code, code spans, link targets, images, HTML
/// comments and tags are not prose; code lines are counted as code lines; checklist items are tallied.
struct MarkdownExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var state = MarkdownState()
        var lines = LineReader()
        try source.forEachUTF8Chunk { chunk in
            lines.feed(chunk) { state.line(Array($0), &output) }
        }
        lines.finish { state.line(Array($0), &output) }
    }
}

/// Line-by-line Markdown state, shared with the notebook extractor.
struct MarkdownState {
    private var lineNumber = 0
    private var frontMatterEnd: [UInt8]? = nil
    private var fence: (char: UInt8, length: Int)? = nil
    private var inComment = false
    /// Whether the previous line ended a block (blank, heading, fence, start): an indented code
    /// block may start here, since it cannot interrupt a paragraph.
    private var atBlockStart = true
    private var inIndentedCode = false
    /// Column of the text of the last list item while its list lasts: its continuation
    /// paragraphs are indented that far, so indented code in it needs four more columns.
    private var listContentColumn: Int? = nil
    private var previousBlank = false

    private static func indent(_ line: [UInt8]) -> Int {
        var i = 0
        while i < line.count && (line[i] == 0x20 || line[i] == 0x09) { i += 1 }
        return i
    }

    /// The column of the first character after leading spaces and tabs (tab stops every 4 columns).
    private static func indentColumn(_ line: [UInt8], from start: Int = 0, column: Int = 0) -> Int {
        var c = column
        var i = start
        while i < line.count && (line[i] == 0x20 || line[i] == 0x09) {
            c = line[i] == 0x09 ? (c / 4 + 1) * 4 : c + 1
            i += 1
        }
        return c
    }

    /// Ends a cell of a notebook: the next cell starts a new block.
    mutating func endBlock() {
        atBlockStart = true
        inIndentedCode = false
        listContentColumn = nil
        previousBlank = false
    }

    private static func isBlank(_ line: [UInt8]) -> Bool { indent(line) == line.count }

    mutating func line(_ line: [UInt8], _ output: inout ExtractionOutput) {
        lineNumber += 1
        if lineNumber == 1 {
            let trimmed = String(decoding: line, as: UTF8.self).trimmedASCIIWhitespace
            if trimmed == "---" {
                frontMatterEnd = Array("---".utf8)
                return
            }
            if trimmed == "+++" {
                frontMatterEnd = Array("+++".utf8)
                return
            }
        }
        if let end = frontMatterEnd {
            let trimmed = Array(String(decoding: line, as: UTF8.self).trimmedASCIIWhitespace.utf8)
            if trimmed == end || (end == Array("---".utf8) && trimmed == Array("...".utf8)) { frontMatterEnd = nil }
            return
        }
        let ind = MarkdownState.indent(line)
        if let open = fence {
            var k = ind
            while k < line.count && line[k] == open.char { k += 1 }
            if ind <= 3 && k - ind >= open.length && MarkdownState.isBlank(Array(line[k...])) {
                fence = nil
                atBlockStart = true
            } else if !MarkdownState.isBlank(line) {
                output.codeLines += 1
            }
            return
        }
        let blank = MarkdownState.isBlank(line)
        defer { previousBlank = blank }
        if let column = listContentColumn, !blank, previousBlank, MarkdownState.indentColumn(line) < column,
            ListMarker.end(of: line, from: ind) == nil
        {
            listContentColumn = nil // a block less indented than the items' text, after a blank line, ends the list
        }
        if !inComment && indentedCode(line, blank: blank) {
            if !blank { output.codeLines += 1 }
            return
        }
        if ind <= 3 && ind + 2 < line.count && (line[ind] == 0x60 || line[ind] == 0x7E) {
            let c = line[ind]
            var k = ind
            while k < line.count && line[k] == c { k += 1 }
            if k - ind >= 3 && !(c == 0x60 && line[k...].contains(0x60)) {
                output[.body].paragraph()
                fence = (c, k - ind)
                return
            }
        }
        if blank && !inComment {
            output[.body].paragraph()
            atBlockStart = true
            return
        }
        atBlockStart = false
        var i = ind
        var heading = false
        if !inComment {
            // Reference definitions: [id]: target
            if line[i] == 0x5B, let close = line[i...].firstIndex(of: 0x5D), close + 1 < line.count, line[close + 1] == 0x3A {
                return
            }
            // Blockquote markers.
            while i < line.count && line[i] == 0x3E {
                i += 1
                while i < line.count && line[i] == 0x20 { i += 1 }
            }
            if i < line.count && line[i] == 0x23 {
                var k = i
                while k < line.count && line[k] == 0x23 { k += 1 }
                if k - i <= 6 && (k == line.count || line[k] == 0x20 || line[k] == 0x09) {
                    heading = true
                    output[.body].paragraph()
                    i = k
                }
            } else if let item = ChecklistScanner.item(line, from: i) {
                output.checklistTotal += 1
                if item.done { output.checklistDone += 1 }
                output[.body].paragraph()
                i = item.textStart
                listContentColumn = MarkdownState.indentColumn(line, from: i, column: i)
            } else if let afterMarker = ListMarker.end(of: line, from: i) {
                output[.body].paragraph()
                i = afterMarker
                listContentColumn = MarkdownState.indentColumn(line, from: i, column: i)
            }
        }
        var text: [UInt8] = []
        inline(line, from: i, into: &text)
        if heading {
            while let last = text.last, last == 0x23 || last == 0x20 { text.removeLast() }
        }
        text.append(0x0A)
        text.withUnsafeBytes { output[.body].counter.consume($0) }
        if heading {
            output[.body].paragraph()
            atBlockStart = true
        }
    }

    /// Whether `line` belongs to an indented code block (CommonMark: indented four columns past the
    /// enclosing list item's text, not interrupting a paragraph; blank lines inside do not end it).
    private mutating func indentedCode(_ line: [UInt8], blank: Bool) -> Bool {
        let required = (listContentColumn ?? 0) + 4
        if inIndentedCode {
            if blank { return true }
            if MarkdownState.indentColumn(line) >= required { return true }
            inIndentedCode = false
            atBlockStart = true
            return false
        }
        guard !blank, atBlockStart, MarkdownState.indentColumn(line) >= required else { return false }
        inIndentedCode = true
        return true
    }

    /// Copies the prose of one line: drops code spans, link targets, images, tags and comments.
    private mutating func inline(_ line: [UInt8], from start: Int, into out: inout [UInt8]) {
        var i = start
        let n = line.count
        func find(_ needle: [UInt8], _ from: Int) -> Int? {
            guard needle.count <= n else { return nil }
            var k = from
            while k + needle.count <= n {
                if line[k] == needle[0] && Array(line[k..<(k + needle.count)]) == needle { return k }
                k += 1
            }
            return nil
        }
        if inComment {
            guard let close = find(Array("-->".utf8), 0) else { return }
            inComment = false
            i = close + 3
        }
        while i < n {
            let c = line[i]
            switch c {
            case 0x5C where i + 1 < n: // backslash escape
                out.append(line[i + 1])
                i += 2
            case 0x60: // code span
                var k = i
                while k < n && line[k] == 0x60 { k += 1 }
                let ticks = k - i
                var search = k
                var closeAt: Int? = nil
                while search < n {
                    if line[search] == 0x60 {
                        var e = search
                        while e < n && line[e] == 0x60 { e += 1 }
                        if e - search == ticks {
                            closeAt = e
                            break
                        }
                        search = e
                    } else {
                        search += 1
                    }
                }
                if let e = closeAt {
                    out.append(0x20)
                    i = e
                } else {
                    out.append(contentsOf: line[i..<k])
                    i = k
                }
            case 0x3C: // comment, autolink or HTML tag
                if i + 3 < n && line[i + 1] == 0x21 && line[i + 2] == 0x2D && line[i + 3] == 0x2D {
                    if let close = find(Array("-->".utf8), i + 4) {
                        i = close + 3
                    } else {
                        inComment = true
                        return
                    }
                } else if let close = line[i...].firstIndex(of: 0x3E), i + 1 < n,
                    (line[i + 1] >= 0x41 && line[i + 1] <= 0x5A) || (line[i + 1] >= 0x61 && line[i + 1] <= 0x7A) || line[i + 1] == 0x2F
                {
                    let inner = Array(line[(i + 1)..<close])
                    if inner.contains(0x3A) && !inner.contains(0x20) || (inner.contains(0x40) && !inner.contains(0x20)) {
                        out.append(contentsOf: inner) // autolink: the URL or address is one word
                    } else {
                        out.append(0x20)
                    }
                    i = close + 1
                } else {
                    out.append(c)
                    i += 1
                }
            case 0x21 where i + 1 < n && line[i + 1] == 0x5B: // image: dropped whole
                if let close = matching(line, i + 1, 0x5B, 0x5D), close + 1 < n, line[close + 1] == 0x28,
                    let end = matching(line, close + 1, 0x28, 0x29)
                {
                    i = end + 1
                } else {
                    out.append(c)
                    i += 1
                }
            case 0x5B: // link: keep the text, drop the target
                if let close = matching(line, i, 0x5B, 0x5D) {
                    if close + 1 < n && line[close + 1] == 0x28, let end = matching(line, close + 1, 0x28, 0x29) {
                        inline(Array(line[(i + 1)..<close]), from: 0, into: &out)
                        i = end + 1
                        continue
                    }
                    if close + 1 < n && line[close + 1] == 0x5B, let end = matching(line, close + 1, 0x5B, 0x5D) {
                        inline(Array(line[(i + 1)..<close]), from: 0, into: &out)
                        i = end + 1
                        continue
                    }
                }
                out.append(c)
                i += 1
            default:
                out.append(c)
                i += 1
            }
        }
    }

    private func matching(_ line: [UInt8], _ open: Int, _ o: UInt8, _ c: UInt8) -> Int? {
        var depth = 0
        var k = open
        while k < line.count {
            if line[k] == 0x5C {
                k += 2
                continue
            }
            if line[k] == o {
                depth += 1
            } else if line[k] == c {
                depth -= 1
                if depth == 0 { return k }
            }
            k += 1
        }
        return nil
    }
}
