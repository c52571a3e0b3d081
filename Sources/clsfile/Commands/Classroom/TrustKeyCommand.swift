import ArgumentParser
import Classroom
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile trust-key STUDENT FINGERPRINT`: a teacher accepts a student's new key on purpose.
struct TrustKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust-key",
        abstract: "Trust a student's new key and import the work kept aside under it (teacher).",
        discussion: """
            `clsfile collect` pins the key a student signs with at their first submission, and \
            keeps aside any later one signed with another key, printing its fingerprint. When the \
            student tells you (not through the file) that they have a new key, for instance on a new \
            computer, and its fingerprint matches (`clsfile role` prints it), trust it: it becomes \
            the student's key, and what was kept aside under it is imported. Work dated in the \
            future stays aside.
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("The student's account identifier, a unique prefix of it, or their name.", valueName: "student"))
    var student: String

    @Argument(
        help: ArgumentHelp("The new key's fingerprint, as `clsfile collect` printed it (8 digits or more).", valueName: "fingerprint"))
    var fingerprint: String

    func run() async throws {
        try await reportingFailures {
            _ = try RoleGate.require(.teacher, for: "trust-key")
            let collector = Collector(store: storeOptions.dataStore(), teacher: try RoleGate.identity(of: .teacher))
            let (identifier, results) = try await collector.trust(student: student, fingerprint: fingerprint)
            let counts = Dictionary(grouping: results, by: \.rawValue).map { "\($1.count) \($0)" }.sorted()
            print("trusted the key \(fingerprint) for \(identifier); kept-aside submissions: \(counts.joined(separator: ", "))")
        }
    }
}
