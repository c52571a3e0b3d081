/// Counts what a person typed and what arrived in pasted bursts, from the bytes of a terminal.
///
/// Text between bracketed-paste markers (`ESC [200~` … `ESC [201~`) is pasted. Otherwise a read
/// that brings more than ``burstLimit`` characters at once is a paste, since no one types that fast
/// between two reads; smaller reads are typing. Escape sequences (arrows, function keys) count as
/// neither. Characters are Unicode scalars: UTF-8 continuation bytes are not counted.
///
/// A paste of text the document already holds (``isOwn`` says so of its bytes: the file as last
/// saved holds them) is the writer's own text moved or copied, counted as moved, never as pasted.
///
/// In a session written by dictation or an input method, which deliver text in bursts, everything
/// counts as typed: nothing is pasted.
struct InputTally: Sendable {
    /// More characters than this in one read count as pasted.
    static let burstLimit = 8

    /// True in a session written by dictation or an input method.
    let isDictated: Bool
    /// Whether pasted bytes are the document's own text; nil: none is.
    let isOwn: (@Sendable ([UInt8]) -> Bool)?

    init(isDictated: Bool = false, isOwn: (@Sendable ([UInt8]) -> Bool)? = nil) {
        self.isDictated = isDictated
        self.isOwn = isOwn
    }

    private(set) var typed = 0
    /// Characters pasted from outside the document, those of a bracketed paste still arriving
    /// included.
    var pasted: Int { finishedPastes + (inPaste && !isDictated ? pasteCharacters : 0) }
    /// Characters of the document's own text pasted.
    private(set) var moved = 0
    /// The most characters pasted at once: a bracketed paste, or bursts with no typing between.
    private(set) var largestPaste = 0
    private var finishedPastes = 0
    private var inPaste = false
    /// The characters and bytes of the bracketed paste arriving.
    private var pasteCharacters = 0
    private var pasteBytes: [UInt8] = []
    /// The characters of the paste going on, until typing ends it.
    private var currentPaste = 0

    mutating func add(_ bytes: some Collection<UInt8>) {
        let input = Array(bytes)
        var index = 0, characters = 0
        var readBytes: [UInt8] = []
        while index < input.count {
            let byte = input[index]
            if byte == 0x1B {
                let end = Self.endOfEscape(in: input, from: index)
                let sequence = input[index..<end]
                if sequence.elementsEqual([0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E]) {
                    (inPaste, pasteCharacters, pasteBytes) = (true, 0, [])
                }
                if sequence.elementsEqual([0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]), inPaste {
                    inPaste = false
                    count(paste: pasteCharacters, of: pasteBytes)
                }
                index = end
                continue
            }
            if inPaste {
                pasteBytes.append(byte)
                if Self.isCharacter(byte) { pasteCharacters += 1 }
            } else {
                readBytes.append(byte)
                if Self.isCharacter(byte) { characters += 1 }
            }
            index += 1
        }
        if characters > Self.burstLimit {
            count(paste: characters, of: readBytes)
        } else if characters > 0 {
            // Before typing ends it: a read may hold a paste's end and a key (Enter) after it.
            largestPaste = max(largestPaste, currentPaste)
            typed += characters
            if !inPaste { currentPaste = 0 }
        }
    }

    /// Counts a paste: typed in a dictated session, moved when it is the document's own text, else pasted.
    private mutating func count(paste characters: Int, of bytes: [UInt8]) {
        if isDictated {
            typed += characters
        } else if isOwn?(bytes) == true {
            moved += characters
        } else {
            finishedPastes += characters
            currentPaste += characters
            largestPaste = max(largestPaste, currentPaste)
        }
    }

    /// Whether bytes read from the person's terminal are only its answers to an editor's queries,
    /// which no one typed: cursor position (`CSI row;col R`), device attributes (`CSI ? … c`,
    /// `CSI > … c`), mode (`CSI ? … $ y`) and window reports (`CSI … t`), the keyboard protocol's
    /// flags (`CSI ? … u`), focus changes (`CSI I`, `CSI O`), and OSC and DCS strings (colours,
    /// the terminal's version and capabilities). Keys that are escape sequences (arrows, function
    /// keys, the mouse) are input. A modified F3 that a terminal sends as `CSI 1;2 R` reads as a
    /// cursor report: it types nothing.
    static func isTerminalReport(_ bytes: some Collection<UInt8>) -> Bool {
        let input = Array(bytes)
        guard !input.isEmpty else { return false }
        var index = 0
        while index < input.count {
            guard input[index] == 0x1B, index + 1 < input.count else { return false }
            let introducer = input[index + 1]
            if introducer == 0x5D || introducer == 0x50 {
                // OSC or DCS: up to BEL or ST (ESC \).
                var end = index + 2
                while end < input.count, input[end] != 0x07, !(input[end] == 0x1B && end + 1 < input.count && input[end + 1] == 0x5C) {
                    end += 1
                }
                guard end < input.count else { return false }
                index = end + (input[end] == 0x07 ? 1 : 2)
                continue
            }
            guard introducer == 0x5B else { return false }
            let end = endOfEscape(in: input, from: index)
            let body = input[(index + 2)..<end]
            guard let final = body.last, (0x40...0x7E).contains(final) else { return false }
            let parameters = body.dropLast()
            let isReport: Bool
            switch final {
            case UInt8(ascii: "R"): isReport = parameters.contains(UInt8(ascii: ";"))
            case UInt8(ascii: "c"): isReport = parameters.first == UInt8(ascii: "?") || parameters.first == UInt8(ascii: ">")
            case UInt8(ascii: "y"): isReport = parameters.last == UInt8(ascii: "$")
            case UInt8(ascii: "t"): isReport = !parameters.isEmpty
            case UInt8(ascii: "u"): isReport = parameters.first == UInt8(ascii: "?")
            case UInt8(ascii: "I"), UInt8(ascii: "O"): isReport = parameters.isEmpty
            default: isReport = false
            }
            guard isReport else { return false }
            index = end
        }
        return true
    }

    private static func isCharacter(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F && !(0x80...0xBF).contains(byte)) || byte == 0x0D || byte == 0x09
    }

    /// Where an escape sequence starting at `start` ends (exclusive).
    private static func endOfEscape(in input: [UInt8], from start: Int) -> Int {
        var index = start + 1
        guard index < input.count else { return index }
        let introducer = input[index]
        index += 1
        guard introducer == 0x5B || introducer == 0x4F else { return index }
        while index < input.count {
            let byte = input[index]
            index += 1
            if (0x40...0x7E).contains(byte) { break }
        }
        return index
    }
}
