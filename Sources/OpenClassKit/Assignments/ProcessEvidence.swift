/// What of a document's writing history an assignment asks students to hand in with their work,
/// as the teacher decided on the handout. Not part of ClassKit.
///
/// Without it (nil), nothing of the history leaves the student's machine.
public enum ProcessEvidence: String, Sendable, Codable, CaseIterable {
    /// Each session's figures: time, words, typed and pasted characters, progress.
    case figures
    /// The figures, and the snapshots of the text, so that the teacher can replay how it grew.
    case replay

    /// What a student is told on accepting the assignment, in words.
    public static func statement(for evidence: ProcessEvidence?) -> String {
        switch evidence {
        case nil:
            "your writing history stays on this computer: the submission holds the document's figures only"
        case .figures?:
            "this assignment asks for process evidence: each session's figures (time, words, typed and pasted characters, progress) go with your submission, and with your work to a class server you joined; the text of earlier versions stays on this computer"
        case .replay?:
            "this assignment asks for process evidence with replay: each session's figures and the snapshots of your text go with your submission, and with your work to a class server you joined, so your teacher can see how it grew"
        }
    }
}
