import ArgumentParser
import CommandSupport
import Foundation
import OpenClassKit
import PlainCalls

/// `clsfile contexts [list|import]`: the app's context tree, as ClassKit's 2018–2020 API builds it.
struct ContextsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contexts",
        abstract: "List the context tree, or import a course of contexts from a manifest.",
        subcommands: [List.self, Import.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the contexts below a path (all of them by default), with their type, metadata, document and current work.")

        @OptionGroup var storeOptions: StoreOptions

        @Flag(name: .long, help: "Print JSON instead of text.")
        var json = false

        @Argument(
            help: ArgumentHelp(
                "The identifiers of the context to list below, from the main app context's child.",
                valueName: "identifier"))
        var path: [String] = []

        func run() async throws {
            try await reportingFailures {
                let store = storeOptions.dataStore()
                let below = path.isEmpty ? store.mainAppContext : try await store.mainAppContext.descendant(matchingIdentifierPath: path)
                guard let below else {
                    throw CLSError(
                        .invalidArgument,
                        "no context \(path.joined(separator: "/")) in \(store.storeURL.path); `clsfile contexts` lists them")
                }
                let prefix = below.identifierPath
                let contexts = try await store.contexts(
                    matching: NSPredicate { context, _ in
                        guard let path = (context as? CLSContext)?.identifierPath else { return false }
                        return path.count > prefix.count && path.starts(with: prefix)
                    })
                var work: [[String]: CLSActivity] = [:]
                for activity in try await store.currentActivities(below: below) { work[activity.context.identifierPath] = activity }
                // Each context under its parent, as a tree reads.
                let ordered = contexts.sorted { $0.identifierPath.lexicographicallyPrecedes($1.identifierPath) }
                if json {
                    Self.writeJSON(ordered, work: work)
                    return
                }
                guard !ordered.isEmpty else {
                    print("No contexts yet: `clsfile contexts import MANIFEST.json` adds a course, or an app adds its own.")
                    return
                }
                var table = Table()
                table.append(["PATH", "TYPE", "TITLE", "WORK", "DETAILS"])
                for context in ordered {
                    let depth = context.identifierPath.count - prefix.count - 1
                    table.append([
                        String(repeating: "  ", count: depth) + context.identifier, Self.typeName(context),
                        context.title, work[context.identifierPath].map(Self.work) ?? "-", Self.details(context)
                    ])
                }
                table.write()
            }
        }

        /// The current activity in a few words: time, progress, the primary item.
        static func work(_ activity: CLSActivity) -> String {
            let summary = ActivitySummary(activity, withSpans: false)
            var parts = [Formatting.text(summary.durationSeconds) + (summary.isStarted ? " running" : "")]
            if summary.progress > 0 { parts.append(Formatting.percent(summary.progress)) }
            if let primary = summary.primaryItem { parts.append("\(primary.title) \(primary.displayValue)") }
            return parts.joined(separator: ", ")
        }

        static func writeJSON(_ contexts: [CLSContext], work: [[String]: CLSActivity]) {
            var json = JSONWriter()
            json.beginObject()
            json.key("contexts")
            json.beginArray()
            for context in contexts {
                json.beginObject()
                if let activity = work[context.identifierPath] {
                    json.key("currentActivity")
                    ActivitySummary(activity, withSpans: false).write(to: &json)
                }
                json.member("customTypeName", context.customTypeName)
                json.member("displayOrder", context.displayOrder)
                json.member("document", context.filePath)
                json.member("identifierPath", Array(context.identifierPath.dropFirst()))
                json.member("isAssignable", context.isAssignable)
                json.member("progressReportingCapabilities", context.progressReportingCapabilities.map { "\($0.kind)" }.sorted())
                json.member("suggestedAge", Self.bounds(context.suggestedAge))
                json.member("suggestedCompletionTime", Self.bounds(context.suggestedCompletionTime))
                json.member("summary", context.summary)
                json.member("title", context.title)
                json.member("topic", context.topic?.rawValue)
                json.member("type", typeName(context))
                json.member("universalLinkURL", context.universalLinkURL?.absoluteString)
                json.endObject()
            }
            json.endArray()
            json.endObject()
            print(json.text)
        }

        /// A range as `[from, to]` in the manifest's form; nil for ClassKit's "no limits".
        static func bounds(_ range: NSRange) -> [String]? {
            range.length < Int.max - 1 ? ["\(range.location)", "\(range.location + range.length)"] : nil
        }

        static func typeName(_ context: CLSContext) -> String {
            context.type == .custom ? context.customTypeName ?? "custom" : "\(context.type)"
        }

        static func details(_ context: CLSContext) -> String {
            var parts: [String] = []
            if let document = context.fileURL { parts.append("document " + document.lastPathComponent) }
            if let topic = context.topic { parts.append(topic.rawValue) }
            if !context.isAssignable { parts.append("not assignable") }
            if context.suggestedAge.length < Int.max - 1 {
                parts.append("ages \(context.suggestedAge.location)–\(context.suggestedAge.location + context.suggestedAge.length)")
            }
            if context.suggestedCompletionTime.length < Int.max - 1 {
                parts.append(
                    "\(context.suggestedCompletionTime.location)–\(context.suggestedCompletionTime.location + context.suggestedCompletionTime.length) min"
                )
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
                "type": "chapter", ...}, "document": "file"}]}, parents before children. A document \
                (a path relative to the manifest) is tied to its context: its work, whether opened \
                with `clsfile open` or an editor plugin, is recorded there, and what was recorded for \
                it before moves along; it keeps its context when moved with `mv`. Importing the same \
                manifest again changes nothing.
                """)

        @OptionGroup var storeOptions: StoreOptions

        @Argument(help: ArgumentHelp("The manifest file.", valueName: "manifest"))
        var manifest: String

        func run() async throws {
            try await reportingFailures {
                let result = try await storeOptions.dataStore().importContexts(CourseManifest.read(from: FileArgument.url(for: manifest)))
                print("contexts: \(result.created) created, \(result.updated) updated, \(result.unchanged) unchanged")
                if result.documents > 0 {
                    let missing = result.documentProblems.count
                    print(
                        "documents: \(result.documentsTied) tied to their contexts, \(result.documents - result.documentsTied - missing) tied already, \(missing) not found"
                    )
                }
                for problem in result.documentProblems {
                    Diagnostics.warn("\(problem); its context was imported: import the manifest again once the document is there")
                }
            }
        }
    }
}
