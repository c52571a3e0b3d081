import Foundation
@testable import SessionRecorder
import StoreTestSupport
import Testing
import TestSupport

struct InputTallyTests {
    @Test func typingIsTypedAndBurstsAndBracketedPastesArePasted() {
        var tally = InputTally()
        for key in "Typed key by key." { tally.add(Array(String(key).utf8)) }
        tally.add(Array("\u{1B}[200~a pasted line\u{1B}[201~".utf8))
        tally.add(Array("a burst of text too fast to type".utf8))
        #expect(tally.typed == 17)
        #expect(tally.pasted == 13 + 32)
    }

    @Test func theLargestPasteJoinsReadsUntilTypingEndsIt() {
        var tally = InputTally()
        // A bracketed paste that arrives in three reads, then typing, then a smaller burst.
        tally.add(Array("\u{1B}[200~first part of it, ".utf8))
        tally.add(Array("then the second part, ".utf8))
        tally.add(Array("and the end\u{1B}[201~".utf8))
        tally.add(Array("x".utf8))
        tally.add(Array("a small burst here".utf8))
        #expect(tally.largestPaste == 18 + 22 + 11)
        #expect(tally.pasted == 18 + 22 + 11 + 18)
        // Typing inside a bracketed paste does not split it; typing after it does.
        var split = InputTally()
        split.add(Array("twelve chars".utf8))
        split.add(Array("y".utf8))
        split.add(Array("twelve chars".utf8))
        #expect(split.largestPaste == 12)
    }

    @Test func aDictatedSessionCountsBurstsAndPastesAsTyped() {
        var tally = InputTally(isDictated: true)
        for key in "Typed." { tally.add(Array(String(key).utf8)) }
        // What dictation and input methods deliver: a burst of words at once, and a bracketed one.
        tally.add(Array("a sentence spoken into the microphone".utf8))
        tally.add(Array("\u{1B}[200~漢字を変換した文\u{1B}[201~".utf8))
        #expect(tally.typed == 6 + 37 + 8)
        #expect(tally.pasted == 0 && tally.largestPaste == 0)
    }

    /// A paste of text the document holds (its own text, copied or moved) is moved, never pasted,
    /// bracketed or a burst, whole or arriving in several reads; the largest paste is of outside text.
    @Test func aPasteOfTheDocumentsOwnTextIsMovedNotPasted() throws {
        let scratch = try Scratch()
        let file = try scratch.file("essay.txt", "The river runs north.\nIt carries the light.\n")
        var tally = InputTally(isOwn: SavedText(path: Array(file.path.utf8)).holds)
        for key in "Typed." { tally.add(Array(String(key).utf8)) }
        // A terminal sends a pasted line break as CR.
        tally.add(Array("\u{1B}[200~The river runs north.\rIt carries".utf8))
        tally.add(Array(" the light.\r\u{1B}[201~".utf8))
        tally.add(Array("x".utf8))
        tally.add(Array("runs north.".utf8))
        tally.add(Array("\u{1B}[200~a line from another program\u{1B}[201~".utf8))
        #expect(tally.typed == 6 + 1)
        #expect(tally.moved == 44 + 11)
        #expect(tally.pasted == 27 && tally.largestPaste == 27)
    }

    /// What a terminal answers an editor's queries with is no input; keys sent as escape
    /// sequences are. (Vim's start under tmux brings `ESC[2;2R ESC[3;1R`: no one typed it.)
    @Test(arguments: [
        ("\u{1B}[2;2R\u{1B}[3;1R", true), ("\u{1B}[?62;22c", true), ("\u{1B}[>0;95;0c", true),
        ("\u{1B}[?2026;2$y", true), ("\u{1B}]11;rgb:0000/0000/0000\u{7}", true), ("\u{1B}]10;rgb:ffff/ffff/ffff\u{1B}\\", true),
        ("\u{1B}P>|tmux 3.3a\u{1B}\\", true), ("\u{1B}[I", true), ("\u{1B}[O", true), ("\u{1B}[8;30;100t", true),
        ("\u{1B}[A", false), ("\u{1B}OA", false), ("\u{1B}[3~", false), ("\u{1B}", false), ("i", false),
        ("\u{1B}[2;2Rx", false), ("\u{1B}[<0;10;5M", false), (":wq\r", false)
    ])
    func terminalReportsAreNoInput(bytes: String, isReport: Bool) {
        #expect(InputTally.isTerminalReport(Array(bytes.utf8)) == isReport)
    }

    @Test func aPasteEndingInTheSameReadAsAKeyStillCounts() {
        var tally = InputTally()
        tally.add(Array("\u{1B}[200~a whole paragraph pasted at once\u{1B}[201~\r".utf8))
        #expect(tally.largestPaste == 32)
        #expect(tally.typed == 1, "the Enter after it is typed")
    }
}
