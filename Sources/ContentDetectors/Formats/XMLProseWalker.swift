/// Streams the prose of an XML word-processing part (DOCX, OpenDocument) into an
/// ``ExtractionOutput``, following a ``Vocabulary`` that says which elements are prose, which are
/// skipped whole, which separate words, end paragraphs or route text to notes and comments.
///
/// Element names are compared as qualified names (`w:t`, `text:p`): the prefixes are taken from
/// the namespaces the root element declares, so a document that binds other prefixes still works.
struct XMLProseWalker: MarkupHandler {
    /// What an element means for the prose.
    enum Role: Equatable {
        /// Neither the element nor anything inside it is prose (deleted revisions, fallbacks).
        case skipped
        /// A word separator (tab, line break).
        case separator
        /// Its end ends a paragraph.
        case paragraph
        /// Stands for this text (a non-breaking hyphen).
        case literal(String)
        /// With ``Vocabulary/textOnlyInRuns``, the only elements whose text is prose (`w:t`).
        case run
        /// With ``Vocabulary/needsBody``, the element outside which nothing is prose (`office:body`).
        case body
        /// Prose like a ``body``, routed to a target of its own (OpenDocument's page headers and
        /// footers, which its master pages hold outside `office:body`).
        case region(ProseTarget)
        /// Routes its text to footnotes, or to endnotes when ``Vocabulary/noteClass`` says `endnote`.
        case note
        /// Routes its text to comments.
        case annotation
        /// Declarations that never hold prose and never nest (OpenDocument's styles and font
        /// declarations): read past unparsed, up to the element's end tag.
        case unread
    }

    /// The elements of one XML dialect and how its text is read.
    struct Vocabulary {
        /// Namespace URIs with the prefix to assume when the root element does not declare them.
        var namespaces: KeyValuePairs<String, String>
        var rules: [(uri: String, local: String, role: Role)]
        /// Whether text counts only inside ``Role/run`` elements (DOCX) or anywhere (OpenDocument).
        var textOnlyInRuns: Bool
        /// Whether nothing counts outside a ``Role/body`` element.
        var needsBody: Bool
        /// Whether whitespace runs collapse into one space, as in OpenDocument; otherwise text is
        /// taken as is (DOCX keeps spaces in `w:t` exact).
        var collapsesWhitespace: Bool
        /// The attribute of a ``Role/note`` element that says `endnote` for endnotes.
        var noteClass: (uri: String, local: String)? = nil
    }

    var output = ExtractionOutput()
    private let vocabulary: Vocabulary
    private var names: [(name: [UInt8], role: Role)] = []
    private var noteClassName = ""
    private var ready = false
    private var bodyDepth = 0
    private var skipDepth = 0
    private var inRun = false
    private var targets: [ProseTarget]
    private var startedUnread = false

    /// A walker whose text goes to `target` unless a note or annotation routes it elsewhere.
    init(_ vocabulary: Vocabulary, target: ProseTarget = .body) {
        self.vocabulary = vocabulary
        targets = [target]
    }

    private var target: ProseTarget { targets[targets.count - 1] }

    private mutating func setUp(_ attributes: UnsafeRawBufferPointer) {
        let names = QualifiedNames(root: attributes, defaults: vocabulary.namespaces)
        self.names = vocabulary.rules.map { (names.name($0.uri, $0.local), $0.role) }
        if let noteClass = vocabulary.noteClass {
            noteClassName = String(decoding: names.name(noteClass.uri, noteClass.local), as: UTF8.self)
        }
        ready = true
    }

    private func role(_ name: UnsafeRawBufferPointer) -> Role? {
        for entry in names where MarkupTokenizer.equals(name, entry.name) { return entry.role }
        return nil
    }

    private var outsideBody: Bool { vocabulary.needsBody && bodyDepth == 0 }

    mutating func start(_ name: UnsafeRawBufferPointer, attributes: UnsafeRawBufferPointer, selfClosing: Bool) throws {
        if !ready { setUp(attributes) }
        startedUnread = false
        guard let role = role(name) else { return }
        if role == .unread {
            startedUnread = true
            return
        }
        if role == .body {
            bodyDepth += 1
            return
        }
        if case .region(let region) = role {
            // Also when self-closing (an empty or hidden header): its end follows at once.
            bodyDepth += 1
            targets.append(region)
            return
        }
        if outsideBody { return }
        if role == .skipped {
            if !selfClosing { skipDepth += 1 }
            return
        }
        guard skipDepth == 0 else { return }
        switch role {
        case .run: inRun = !selfClosing
        case .separator: output[target].space()
        case .literal(let text): output[target].text(text)
        case .note:
            let kind = MarkupTokenizer.attribute(noteClassName, in: attributes)
            targets.append(kind == "endnote" ? .endnotes : .footnotes)
        case .annotation: targets.append(.comments)
        default: break
        }
    }

    func skipsContent() -> Bool { startedUnread }

    mutating func end(_ name: UnsafeRawBufferPointer) throws {
        guard let role = role(name), role != .unread else { return }
        if role == .body {
            bodyDepth -= 1
            return
        }
        if case .region = role {
            // The region's last paragraph ends with it, in its own target.
            output[target].paragraph()
            bodyDepth -= 1
            if targets.count > 1 { targets.removeLast() }
            return
        }
        if role == .run { inRun = false }
        if outsideBody { return }
        if role == .skipped {
            skipDepth = max(0, skipDepth - 1)
            return
        }
        guard skipDepth == 0 else { return }
        switch role {
        case .paragraph: output[target].paragraph()
        case .note, .annotation: if targets.count > 1 { targets.removeLast() }
        default: break
        }
    }

    mutating func text(_ bytes: UnsafeRawBufferPointer) throws {
        guard skipDepth == 0, !outsideBody, inRun || !vocabulary.textOnlyInRuns else { return }
        if vocabulary.collapsesWhitespace {
            output[target].collapsed(bytes)
        } else {
            output[target].exact(bytes)
        }
    }

    /// Ends the open paragraph of every target (at the end of a part).
    mutating func finish() {
        for target in ProseTarget.allCases { output[target].paragraph() }
    }
}
