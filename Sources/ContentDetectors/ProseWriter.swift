internal import CTextScan

/// Where extracted prose goes.
enum ProseTarget: Int, CaseIterable {
    case body, footnotes, endnotes, comments, headersAndFooters
}

/// Feeds extracted text into one ``WordCounter``, optionally collapsing whitespace as HTML and ODF do.
struct ProseWriter {
    var counter = WordCounter()
    private static let space: UInt8 = 0x20
    private var pendingSpace = false
    private var atParagraphStart = true

    /// Text whose whitespace runs (including line breaks) count as one space.
    ///
    /// Words joined by single spaces go to the counter together, as one run: it sees the same bytes
    /// as if each space had been collapsed on its own, at a fraction of the calls.
    mutating func collapsed(_ bytes: UnsafeRawBufferPointer) {
        // Most text of a paragraph is words joined by single spaces: one call, no byte loop here.
        if let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0, base[0] != 0x20,
            base[bytes.count - 1] != 0x20, clsfile_needs_collapsing(base, bytes.count) == 0
        {
            emit(bytes)
            return
        }
        var runStart = 0
        var i = 0
        let n = bytes.count
        while i < n {
            guard ProseWriter.isWhitespace(bytes[i]) else {
                i += 1
                continue
            }
            if bytes[i] == 0x20 && i > runStart && i + 1 < n && !ProseWriter.isWhitespace(bytes[i + 1]) {
                i += 1
                continue
            }
            if i > runStart { emit(UnsafeRawBufferPointer(rebasing: bytes[runStart..<i])) }
            if !atParagraphStart { pendingSpace = true }
            i += 1
            runStart = i
        }
        if n > runStart { emit(UnsafeRawBufferPointer(rebasing: bytes[runStart..<n])) }
    }

    /// Text taken as is, except that line breaks become spaces.
    mutating func exact(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if memchr(base, 0x0A, bytes.count) != nil || memchr(base, 0x0D, bytes.count) != nil {
            collapsed(bytes)
            return
        }
        emit(bytes)
    }

    @inline(__always)
    private static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 || c == 0x0C
    }

    private mutating func emit(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        if pendingSpace {
            pendingSpace = false
            withUnsafeBytes(of: ProseWriter.space) { counter.consume($0) }
        }
        atParagraphStart = false
        counter.consume(bytes)
    }

    /// A word separator (tab, line break inside a paragraph).
    mutating func space() {
        if !atParagraphStart { pendingSpace = true }
    }

    mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { exact(UnsafeRawBufferPointer($0)) }
    }

    mutating func paragraph() {
        pendingSpace = false
        atParagraphStart = true
        counter.endParagraph()
    }
}

/// Everything an extractor produces for one document.
struct ExtractionOutput {
    var writers = ProseTarget.allCases.map { _ in ProseWriter() }
    var codeLines = 0
    var checklistDone = 0
    var checklistTotal = 0
    var codeCells = 0
    var executedCells = 0
    var markdownCells = 0
    var isNotebook = false
    /// Entity references the markup tokenizers left unexpanded.
    var ignoredEntities = 0
    /// Body statistics computed apart (parallel plain-text counting); replaces the body writer's.
    var bodyOverride: TextStatistics? = nil

    subscript(target: ProseTarget) -> ProseWriter {
        get { writers[target.rawValue] }
        set { writers[target.rawValue] = newValue }
    }
}

/// One extractor per format: streams a file's prose into an ``ExtractionOutput``.
protocol TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws
}

/// A file opened for extraction, with what the detector found out about it.
struct DocumentSource {
    let file: SafeFile
    let kind: FileKind
    /// The central directory of a ZIP-based document, as kind detection read it.
    let zipItems: ZipContainer.Directory?
    let options: AnalysisOptions

    var path: String { file.path }

    /// The document's ZIP container, with the options' limits.
    func zipContainer() throws -> ZipContainer {
        try ZipContainer(file: file, items: zipItems, limits: options.zipLimits)
    }

    /// Streams the file as UTF-8, transcoding from its charset.
    func forEachUTF8Chunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let transcoder = Transcoder(charset: kind.charset)
        try file.forEachChunk { chunk in try transcoder.feed(chunk, body) }
        try transcoder.finish(body)
    }
}
