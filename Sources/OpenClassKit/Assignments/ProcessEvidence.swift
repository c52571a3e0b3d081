import Foundation

/// What of a document's writing history an assignment asks students to hand in with their work,
/// as the teacher decided on the handout. Not part of ClassKit.
///
/// Without it (nil), nothing of the history leaves the student's machine.
public enum ProcessEvidence: String, Sendable, Codable, CaseIterable {
    /// Each session's figures: time, words, typed and pasted characters, progress.
    case figures
    /// The figures, and the snapshots of the text, so that the teacher can replay how it grew.
    case replay

    /// How many days a teacher's store and a class server keep the process evidence of work after
    /// it last changed, when the handout does not say (`clsfile assign --keep-evidence DAYS`):
    /// 180, a school term and the weeks after it in which a grade is questioned. The figures of
    /// the work are kept; the rows and snapshots of its history are deleted.
    public static let defaultKeptDays = 180
    /// The most days a handout may keep process evidence: 100 years, as the store checks.
    public static let maximumKeptDays = 36_600

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

    /// What a student is told of how long their teacher keeps the process evidence, and of
    /// withdrawing it, in words; the commands name the assignment by its identifier's first characters.
    public static func keepingStatement(days: Int, withdrawnAt: Date?, assignment identifier: String) -> String {
        let key = identifier.prefix(8)
        if withdrawnAt != nil {
            return
                "you withdrew the process evidence: your writing history stays on this computer and your teacher is told so; the figures still go (`clsfile evidence \(key) --restore` sends it again)"
        }
        return
            "your teacher's computer and class server keep it \(days) \(days == 1 ? "day" : "days") after your work last changed, then delete it and keep the figures; until it leaves, `clsfile evidence \(key) --withdraw` keeps it here"
    }
}
