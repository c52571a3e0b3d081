import ArgumentParser
import ClassDashboard
import ClassWire
@testable import clsfile
@testable import clsfile_serve
@testable import clsfile_sync
import ForwardedCommands
import Foundation
import Testing

/// clsfile's entries for the commands it hands to clsfile-sync and clsfile-serve describe them as
/// those programs do, so that `clsfile --help`, the manual pages and the shell completions made
/// from them tell the real options.
struct ForwardedCommandHelpTests {
    /// What clsfile's help adds to each of its commands: clsfile has a version, the helper programs do not.
    private static func withoutVersion(_ help: String) -> String {
        help.replacingOccurrences(of: "  --version               Show the version.\n", with: "")
    }

    /// Each forwarded command: clsfile's entry, and the program's command that runs it.
    private static let commands: [String: (entry: any ParsableCommand.Type, runner: any ParsableCommand.Type)] = [
        "join": (ForwardedCommand.Join.self, JoinCommand.self),
        "sync": (ForwardedCommand.Sync.self, SendCommand.self),
        "status": (ForwardedCommand.Status.self, StatusCommand.self),
        "leave": (ForwardedCommand.Leave.self, LeaveCommand.self),
        "register": (ForwardedCommand.Register.self, RegisterCommand.self),
        "catalog": (ForwardedCommand.Catalog.self, CatalogCommand.self),
        "catalog keygen": (ForwardedCommand.Catalog.Keygen.self, CatalogCommand.Keygen.self),
        "catalog publish": (ForwardedCommand.Catalog.Publish.self, CatalogCommand.Publish.self),
        "catalog list": (ForwardedCommand.Catalog.List.self, CatalogCommand.List.self),
        "catalog delete": (ForwardedCommand.Catalog.Delete.self, CatalogCommand.Delete.self),
        "catalog token": (ForwardedCommand.Catalog.Token.self, CatalogCommand.Token.self)
    ]

    @Test(arguments: [
        "join", "sync", "status", "leave", "register", "catalog",
        "catalog keygen", "catalog publish", "catalog list", "catalog delete", "catalog token"
    ])
    func clsfileDescribesASyncCommandAsClsfileSyncDoes(_ command: String) throws {
        let pair = try #require(Self.commands[command])
        let described = Self.withoutVersion(Clsfile.helpMessage(for: pair.entry, columns: 100))
        let run = SyncCommand.helpMessage(for: pair.runner, columns: 100).replacingOccurrences(of: "clsfile-sync ", with: "clsfile ")
        #expect(described == run)
        #expect(described.contains("USAGE: clsfile \(command)"))
    }

    @Test func clsfileDescribesServeAsClsfileServeDoes() {
        let described = Self.withoutVersion(Clsfile.helpMessage(for: ForwardedCommand.Serve.self, columns: 100))
        // clsfile-serve's --verbose is its root option, as clsfile's is clsfile's: clsfile's help
        // shows it once, for every command.
        var lines = ServeCommand.helpMessage(columns: 100).replacingOccurrences(of: " [--verbose]", with: "")
            .split(separator: "\n", omittingEmptySubsequences: false)
        if let verbose = lines.firstIndex(where: { $0.hasPrefix("  --verbose ") }) {
            let continued = lines[(verbose + 1)...].prefix { $0.hasPrefix("                          ") }.count
            lines.removeSubrange(verbose...(verbose + continued))
        }
        let run = lines.joined(separator: "\n")
        #expect(described == run)
        #expect(described.contains("--token-file <path>") && !described.contains("--token <"))
    }

    @Test func theCompletionScriptsKnowTheForwardedCommandsOptions() {
        for shell in [CompletionShell.bash, .zsh, .fish] {
            let script = Clsfile.completionScript(for: shell)
            for option in ["batch-size", "code", "token-file", "environment", "minutes"] {
                #expect(script.contains(option), "\(shell) completion lacks --\(option)")
            }
        }
    }

    /// The values ForwardedCommands declares without importing the modules that own them.
    @Test func theOptionsLimitsAreTheWireFormatsAndTheWebServers() {
        #expect(SyncArguments.maximumBatchSize == SyncWire.maximumOperations)
        #expect(CatalogArguments.Environment.allCases.map(\.rawValue) == CatalogWire.Environment.allCases.map(\.rawValue))
        #expect(ServeArguments.minimumTokenLength == AccessToken.minimumLength)
    }
}
