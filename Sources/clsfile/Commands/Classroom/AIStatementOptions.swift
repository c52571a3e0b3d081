import ArgumentParser
import Foundation
import OpenClassKit

/// `--ai-use KIND [--ai-note TEXT]`: a student's statement of how they used AI tools, as
/// `clsfile submit` and `clsfile done` take it.
struct AIStatementOptions: ParsableArguments {
    @Option(
        name: .customLong("ai-use"),
        help: ArgumentHelp(
            "How you used AI tools on this work: 'none', 'ideas', 'feedback', 'editing' or 'drafting'. Kept with the assignment and sent with your work, replacing what you said before.",
            valueName: "kind"))
    var use: AIStatement.Use?

    @Option(
        name: .customLong("ai-note"),
        help: ArgumentHelp(
            "With --ai-use: in your own words, what you used and how (one paragraph, at most 2,000 characters).",
            valueName: "text"))
    var note: String?

    func validate() throws {
        guard let note else { return }
        guard use != nil else { throw ValidationError("--ai-note goes with --ai-use: say which kind of use it explains.") }
        if let problem = AIStatement.problem(withNote: note) { throw ValidationError("The --ai-note \(problem).") }
    }

    /// The statement the options give, stated now; nil without --ai-use.
    /// - Throws: `CLSError` for a note ``validate()`` would have refused.
    func statement() throws -> AIStatement? {
        try use.map { try AIStatement(use: $0, note: note) }
    }
}

extension AIStatement.Use: ExpressibleByArgument {}
extension AIStatement.Requirement: ExpressibleByArgument {}
