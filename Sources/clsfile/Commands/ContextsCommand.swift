import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit

/// `clsfile contexts [list|import]`: the app's context tree, as ClassKit's 2018–2020 API builds it.
struct ContextsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contexts",
        abstract: "List the context tree, or import a course of contexts from a manifest.",
        subcommands: [List.self, Import.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the contexts below a path (all of them by default), with their type and metadata.")

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The identifiers of the context to list below, from the main app context's child.",
                                     valueName: "identifier"))
        var path: [String] = []

        func run() async throws {
            try await reportingFailures {
                let store = storeOptions.dataStore()
                let below = path.isEmpty ? store.mainAppContext : try await store.mainAppContext.descendant(matchingIdentifierPath: path)
                guard let below else {
                    throw CLSError(.invalidArgument, "no context \(path.joined(separator: "/")) in \(store.storeURL.path); `clsfile contexts` lists them")
                }
                let prefix = below.identifierPath
                let contexts = try await store.contexts(matching: NSPredicate { context, _ in
                    guard let path = (context as? CLSContext)?.identifierPath else { return false }
                    return path.count > prefix.count && path.starts(with: prefix)
                })
                guard !contexts.isEmpty else {
                    print("No contexts yet: `clsfile contexts import MANIFEST.json` adds a course, or an app adds its own.")
                    return
                }
                var table = Table()
                table.append(["PATH", "TYPE", "TITLE", "DETAILS"])
                // Each context under its parent, as a tree reads.
                let ordered = contexts.sorted { $0.identifierPath.lexicographicallyPrecedes($1.identifierPath) }
                for context in ordered {
                    let depth = context.identifierPath.count - prefix.count - 1
                    table.append([String(repeating: "  ", count: depth) + context.identifier, Self.typeName(context),
                                  context.title, Self.details(context)])
                }
                table.write()
            }
        }

        static func typeName(_ context: CLSContext) -> String {
            context.type == .custom ? context.customTypeName ?? "custom" : "\(context.type)"
        }

        static func details(_ context: CLSContext) -> String {
            var parts: [String] = []
            if let topic = context.topic { parts.append(topic.rawValue) }
            if !context.isAssignable { parts.append("not assignable") }
            if context.suggestedAge.length < Int.max - 1 {
                parts.append("ages \(context.suggestedAge.location)–\(context.suggestedAge.location + context.suggestedAge.length)")
            }
            if context.suggestedCompletionTime.length < Int.max - 1 {
                parts.append("\(context.suggestedCompletionTime.location)–\(context.suggestedCompletionTime.location + context.suggestedCompletionTime.length) min")
            }
            let kinds = context.progressReportingCapabilities.map { "\($0.kind)" }.sorted()
            if kinds != ["duration"] { parts.append("reports " + kinds.joined(separator: ", ")) }
            return parts.joined(separator: "; ")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or update contexts from a course manifest (the Catalog API's context data).",
            discussion: """
                The manifest is JSON: {"contexts": [{"data": {"identifierPath": [...], "title": ..., \
                "type": "chapter", ...}, "document": "file"}]}, parents before children. Importing the \
                same manifest again changes nothing. Documents named in it are counted but not yet \
                tied to their contexts.
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The manifest file.", valueName: "manifest"))
        var manifest: String

        func run() async throws {
            try await reportingFailures {
                let result = try await storeOptions.dataStore().importContexts(CourseManifest.read(from: FileArgument.url(for: manifest)))
                print("contexts: \(result.created) created, \(result.updated) updated, \(result.unchanged) unchanged")
                if result.documents > 0 {
                    let one = result.documents == 1
                    Diagnostics.warn("\(result.documents) document\(one ? "" : "s") named in the manifest \(one ? "is" : "are") not yet tied to \(one ? "its context" : "their contexts"): \(one ? "its" : "their") work is recorded as that of any file")
                }
            }
        }
    }
}
