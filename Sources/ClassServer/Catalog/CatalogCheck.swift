import ClassWire
import Foundation
import OpenClassKit

/// The values a catalog request may carry, checked before anything is written.
enum CatalogCheck {
    /// Checks one context's fields: sizes, ranges and characters.
    /// - Throws: ``ServerError`` `.invalidValue` naming the field.
    static func check(_ context: CatalogWire.Context) throws {
        let data = context.data.description
        let path = data.identifierPath
        guard (1...32).contains(path.count) else {
            throw ServerError(.invalidValue, "identifierPath has \(path.count) identifiers; a context's path has 1 to 32")
        }
        for identifier in path { try text(identifier, "an identifier of identifierPath", upTo: 256) }
        let where_ = path.joined(separator: "/").prefix(200)
        func refuse(_ what: String) -> ServerError { ServerError(.invalidValue, "context \(where_): \(what)") }
        do {
            try text(data.title, "title", upTo: 256)
            try data.customTypeName.map { try text($0, "customTypeName", upTo: 256) }
            try data.summary.map { try text($0, "summary", upTo: 4_096, lines: true) }
            try data.topic.map { try text($0, "topic", upTo: 256) }
            try context.data.thumbnailId.map { try checkName($0, what: "thumbnailId") }
        } catch let error as ServerError {
            throw refuse(error.message)
        }
        if let order = data.displayOrder, !(-1_000_000_000...1_000_000_000).contains(order) {
            throw refuse("displayOrder must be within ±1,000,000,000")
        }
        for (name, range, most) in [
            ("suggestedAge", data.suggestedAge, 150), ("suggestedCompletionTime", data.suggestedCompletionTime, 100_000)
        ] {
            guard let range else { continue }
            guard range.count == 2, range[0] >= 0, range[0] <= range[1], range[1] <= most else {
                throw refuse("\(name) is [lowest, highest] with 0 ≤ lowest ≤ highest ≤ \(most)")
            }
        }
        if let capabilities = data.progressReportingCapabilities {
            guard capabilities.count <= 16 else { throw refuse("progressReportingCapabilities has more than 16 entries") }
            do {
                for details in capabilities.compactMap(\.details) { try text(details, "a capability's details", upTo: 256) }
            } catch let error as ServerError {
                throw refuse(error.message)
            }
        }
        if let link = data.universalLinkURL {
            guard ["http", "https"].contains(link.scheme?.lowercased() ?? ""), link.host != nil, link.absoluteString.utf8.count <= 2_048
            else {
                throw refuse("universalLinkURL must be an http or https address of at most 2,048 bytes")
            }
        }
        if let metadata = context.metadata {
            let lists = [
                ("keywords", metadata.keywords), ("presentableLocales", metadata.presentableLocales),
                ("standardsAlignments", metadata.standardsAlignments)
            ]
            do {
                try metadata.locale.map { try text($0, "metadata.locale", upTo: 64) }
                try metadata.minimumBundleVersion.map { try text($0, "metadata.minimumBundleVersion", upTo: 64) }
                for (name, list) in lists {
                    guard let list else { continue }
                    guard list.count <= 64 else { throw ServerError(.invalidValue, "\(name) has more than 64 entries") }
                    for entry in list { try text(entry, "an entry of metadata.\(name)", upTo: 256) }
                }
                if let paths = metadata.presentablePaths {
                    guard paths.count <= 64 else { throw ServerError(.invalidValue, "metadata.presentablePaths has more than 64 paths") }
                    for path in paths {
                        for identifier in path { try text(identifier, "an identifier of metadata.presentablePaths", upTo: 256) }
                    }
                }
            } catch let error as ServerError {
                throw refuse(error.message)
            }
        }
    }

    /// Checks a team, key or thumbnail id: 1 to 64 letters, digits, `.`, `_` or `-`.
    static func checkName(_ name: String, what: String) throws {
        guard CatalogWire.isName(name) else {
            throw ServerError(.invalidValue, "\(what) is 1 to 64 ASCII letters, digits, '.', '_' or '-', not '\(name.prefix(40))'")
        }
    }

    private static func text(_ value: String, _ what: String, upTo bytes: Int, lines: Bool = false) throws {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty, value.utf8.count <= bytes else {
            throw ServerError(.invalidValue, "\(what) must be 1 to \(bytes) bytes, not blank")
        }
        let forbidden = value.unicodeScalars.contains {
            $0.properties.generalCategory == .control && !(lines && ($0 == "\n" || $0 == "\t"))
        }
        guard !forbidden else { throw ServerError(.invalidValue, "\(what) has control characters") }
    }
}
