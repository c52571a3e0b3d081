/// LaTeX, following texcount's default rules: the preamble (before `\begin{document}`, when there
/// is a `\documentclass`), comments, math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]` and math environments),
/// command names, options and the arguments of non-text commands are excluded; the arguments of
/// sectioning, caption and emphasis commands, and of unknown commands, are counted; `\footnote`
/// goes to footnotes; verbatim-like environments count as code lines; inline code (`\verb|…|`,
/// `\lstinline`) and file names (`\input`, `\include`) are not prose.
struct LaTeXExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        var state = LaTeXState()
        var lines = LineReader()
        try source.forEachUTF8Chunk { chunk in
            lines.feed(chunk) { state.line(Array($0), &output) }
        }
        lines.finish { state.line(Array($0), &output) }
    }
}

struct LaTeXState {
    private enum Arg { case text, skip, footnote, environmentBegin, environmentEnd, heading }
    private enum Math { case none, inline, display, paren, bracket }

    private static let headings: Set<String> = [
        "part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph", "title", "caption"
    ]
    private static let textArgument: Set<String> = [
        "emph", "textbf", "textit", "textsc", "textrm", "textsf", "texttt", "textup", "textmd", "textsl", "underline", "uline", "mbox",
        "text", "url", "author", "subtitle"
    ]
    private static let skipArguments: [String: Int] = [
        "label": 1, "ref": 1, "eqref": 1, "pageref": 1, "cite": 1, "citep": 1, "citet": 1, "citeauthor": 1, "autoref": 1,
        "cref": 1, "Cref": 1, "nameref": 1, "includegraphics": 1, "input": 1, "include": 1, "usepackage": 1,
        "documentclass": 1, "bibliography": 1, "bibliographystyle": 1, "pagestyle": 1, "thispagestyle": 1,
        "setlength": 2, "setcounter": 2, "addtocounter": 2, "vspace": 1, "hspace": 1, "newcommand": 2, "renewcommand": 2,
        "providecommand": 2, "newenvironment": 3, "renewenvironment": 3, "hypersetup": 1, "graphicspath": 1, "geometry": 1,
        "date": 1, "definecolor": 3, "color": 1, "textcolor": 1, "newtheorem": 2, "href": 1, "addbibresource": 1,
        "linespread": 1, "fontsize": 2, "selectfont": 0, "DeclareMathOperator": 2, "numberwithin": 2, "bibitem": 1
    ]
    private static let mathEnvironments: Set<String> = [
        "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*", "eqnarray", "eqnarray*", "math",
        "displaymath", "flalign", "flalign*", "alignat", "alignat*"
    ]
    private static let codeEnvironments: Set<String> = ["verbatim", "verbatim*", "lstlisting", "minted", "Verbatim", "comment"]

    private var groups: [Arg] = []
    private var expected: [Arg] = []
    private var optionDepth = 0
    private var allowOptions = false
    private var math = Math.none
    private var skipUntil: [UInt8]? = nil
    private var skipIsCode = false
    private var preamble = false
    private var seenContent = false
    private var captured: [UInt8] = []

    private var suppressed: Bool {
        preamble || groups.contains { $0 == .skip || $0 == .environmentBegin || $0 == .environmentEnd }
    }

    private var target: ProseTarget { groups.contains(.footnote) ? .footnotes : .body }

    mutating func line(_ line: [UInt8], _ output: inout ExtractionOutput) {
        var out: [UInt8] = []
        var i = 0
        let n = line.count
        func flush(_ output: inout ExtractionOutput) {
            if !out.isEmpty {
                let t = target
                out.withUnsafeBytes { output[t].counter.consume($0) }
                out.removeAll(keepingCapacity: true)
            }
        }
        if let end = skipUntil {
            if let at = LaTeXState.find(end, in: line, from: 0) {
                skipUntil = nil
                i = at + end.count
            } else {
                if skipIsCode && line.contains(where: { $0 != 0x20 && $0 != 0x09 }) { output.codeLines += 1 }
                return
            }
        }
        if !seenContent {
            if LaTeXState.find(Array("\\documentclass".utf8), in: line, from: 0) != nil { preamble = true }
            if line.contains(where: { $0 != 0x20 && $0 != 0x09 }) { seenContent = true }
        }
        let blank = !line.contains(where: { $0 != 0x20 && $0 != 0x09 })
        if blank {
            output[target].paragraph()
            return
        }
        while i < n {
            if let end = skipUntil {
                if let at = LaTeXState.find(end, in: line, from: i) {
                    skipUntil = nil
                    i = at + end.count
                } else {
                    i = n
                }
                continue
            }
            let c = line[i]
            if math != .none {
                // Inside math: look only for the closing delimiter.
                switch (math, c) {
                case (.inline, 0x24):
                    math = .none
                    i += 1
                case (.display, 0x24) where i + 1 < n && line[i + 1] == 0x24:
                    math = .none
                    i += 2
                case (_, 0x5C) where i + 1 < n:
                    if math == .paren && line[i + 1] == 0x29 { math = .none }
                    if math == .bracket && line[i + 1] == 0x5D { math = .none }
                    i += 2
                case (_, 0x25): i = n
                default: i += 1
                }
                continue
            }
            if optionDepth > 0 {
                if c == 0x5B { optionDepth += 1 } else if c == 0x5D { optionDepth -= 1 }
                i += 1
                continue
            }
            if c != 0x20 && c != 0x09 && c != 0x7B && c != 0x5B && !expected.isEmpty {
                expected.removeAll()
                allowOptions = false
            }
            if c != 0x5B && c != 0x20 && c != 0x09 { allowOptions = allowOptions && c == 0x7B }
            switch c {
            case 0x25: // comment
                i = n
            case 0x24:
                if i + 1 < n && line[i + 1] == 0x24 {
                    math = .display
                    i += 2
                } else {
                    math = .inline
                    i += 1
                }
                out.append(0x20)
            case 0x7B:
                flush(&output)
                if let next = expected.first {
                    expected.removeFirst()
                    groups.append(next)
                    if next == .environmentBegin || next == .environmentEnd { captured = [] }
                } else {
                    groups.append(.text)
                }
                allowOptions = false
                i += 1
            case 0x7D:
                flush(&output)
                if let closed = groups.popLast() {
                    if closed == .environmentBegin {
                        flush(&output)
                        beginEnvironment(String(decoding: captured, as: UTF8.self), &output)
                    } else if closed == .heading {
                        flush(&output)
                        output[.body].paragraph()
                    }
                }
                i += 1
            case 0x5B where allowOptions:
                optionDepth = 1
                i += 1
            case 0x7E:
                out.append(0x20)
                i += 1
            case 0x2D where i + 1 < n && line[i + 1] == 0x2D:
                if i + 2 < n && line[i + 2] == 0x2D {
                    if !suppressed { out.append(contentsOf: [0xE2, 0x80, 0x94]) }
                    i += 3
                } else {
                    if !suppressed { out.append(contentsOf: [0xE2, 0x80, 0x93]) }
                    i += 2
                }
            case 0x5C:
                guard i + 1 < n else {
                    i += 1
                    continue
                }
                let d = line[i + 1]
                if (d >= 0x61 && d <= 0x7A) || (d >= 0x41 && d <= 0x5A) {
                    var k = i + 1
                    while k < n && ((line[k] >= 0x61 && line[k] <= 0x7A) || (line[k] >= 0x41 && line[k] <= 0x5A)) { k += 1 }
                    if k < n && line[k] == 0x2A { k += 1 }
                    let name = String(decoding: line[(i + 1)..<k], as: UTF8.self)
                    flush(&output)
                    if let end = LaTeXState.inlineCodeEnd(name, line, from: k) {
                        out.append(0x20) // \verb|…|, \lstinline: code, not prose
                        i = end
                        continue
                    }
                    if name == "input", let end = LaTeXState.bareFileNameEnd(line, from: k) {
                        i = end // \input file, without braces: a file name, not prose
                        continue
                    }
                    command(name, &output, &out)
                    i = k
                } else {
                    switch d {
                    case 0x28: math = .paren
                    case 0x5B: math = .bracket
                    case 0x5C, 0x2C, 0x3B, 0x21, 0x20: out.append(0x20)
                    case 0x25, 0x26, 0x23, 0x24, 0x5F, 0x7B, 0x7D: if !suppressed { out.append(d) }
                    default: break // accents and \- : dropped so the word stays whole
                    }
                    i += 2
                }
            default:
                if groups.last == .environmentBegin || groups.last == .environmentEnd {
                    captured.append(c)
                } else if !suppressed {
                    out.append(c)
                }
                i += 1
            }
        }
        out.append(0x0A)
        if !suppressed { flush(&output) } else { out.removeAll() }
    }

    private mutating func command(_ name: String, _ output: inout ExtractionOutput, _ out: inout [UInt8]) {
        let bare = name.hasSuffix("*") ? String(name.dropLast()) : name
        allowOptions = true
        expected = []
        if bare == "begin" {
            expected = [.environmentBegin]
        } else if bare == "end" {
            expected = [.environmentEnd]
        } else if bare == "item" {
            output[target].paragraph()
        } else if bare == "footnote" {
            expected = [.footnote]
        } else if LaTeXState.headings.contains(bare) {
            output[.body].paragraph()
            expected = [.heading]
        } else if LaTeXState.textArgument.contains(bare) {
            expected = [.text]
        } else if let count = LaTeXState.skipArguments[bare] {
            expected = Array(repeating: .skip, count: count)
            if bare == "href" || bare == "textcolor" { expected.append(.text) }
        } else if bare == "par" {
            output[target].paragraph()
        } else {
            out.append(0x20)
        }
    }

    private mutating func beginEnvironment(_ name: String, _ output: inout ExtractionOutput) {
        if name == "document" {
            preamble = false
        } else if LaTeXState.mathEnvironments.contains(name) || LaTeXState.codeEnvironments.contains(name) {
            skipUntil = Array("\\end{\(name)}".utf8)
            skipIsCode = LaTeXState.codeEnvironments.contains(name) && name != "comment"
            expected = []
        } else if name == "tabular" || name == "tabularx" || name == "array" {
            expected = name == "tabularx" ? [.skip, .skip] : [.skip]
        }
        output[target].paragraph()
    }

    /// For `\verb`, `\verb*` and `\lstinline` (with `name` read up to `start`): the index after
    /// the inline code, which runs from a delimiter character to its next occurrence on the line
    /// (or, for `\lstinline{…}`, to the closing brace). `nil` for other commands.
    static func inlineCodeEnd(_ name: String, _ line: [UInt8], from start: Int) -> Int? {
        guard name == "verb" || name == "verb*" || name == "lstinline" else { return nil }
        var k = start
        if name == "lstinline" && k < line.count && line[k] == 0x5B { // [options]
            while k < line.count && line[k] != 0x5D { k += 1 }
            k += 1
        }
        guard k < line.count else { return line.count }
        let open = line[k]
        let close: UInt8 = open == 0x7B ? 0x7D : open
        guard let end = line[(k + 1)...].firstIndex(of: close) else { return line.count }
        return end + 1
    }

    /// For `\input` followed by a file name without braces (`\input chapter`): the index after the name.
    static func bareFileNameEnd(_ line: [UInt8], from start: Int) -> Int? {
        var k = start
        while k < line.count && (line[k] == 0x20 || line[k] == 0x09) { k += 1 }
        guard k < line.count, line[k] != 0x7B, line[k] != 0x25, line[k] != 0x5C else { return nil }
        while k < line.count && line[k] != 0x20 && line[k] != 0x09 && line[k] != 0x25 && line[k] != 0x7D { k += 1 }
        return k
    }

    static func find(_ needle: [UInt8], in line: [UInt8], from: Int) -> Int? {
        guard needle.count <= line.count else { return nil }
        var k = from
        while k + needle.count <= line.count {
            if line[k] == needle[0] && Array(line[k..<(k + needle.count)]) == needle { return k }
            k += 1
        }
        return nil
    }
}
