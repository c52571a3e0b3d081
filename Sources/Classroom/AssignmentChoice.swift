/// The one assignment a person names on the command line: by its identifier, a unique prefix of
/// it, or its title, all without regard to case.
public enum AssignmentChoice {
    /// Picks the item a key names.
    /// - Parameters:
    ///   - key: What the person typed.
    ///   - items: The assignments (or their summaries) to choose from.
    ///   - identifier: An item's assignment identifier.
    ///   - title: An item's title.
    ///   - place: Where the items come from, for the error message (a store's path).
    /// - Throws: ``ClassroomError`` `.notAssigned` when no item, or more than one, matches.
    public static func pick<Item>(
        _ key: String, from items: [Item], identifier: (Item) -> String,
        title: (Item) -> String, in place: String
    ) throws -> Item {
        let lowered = key.lowercased()
        let exact = items.filter { identifier($0).lowercased() == lowered || title($0).lowercased() == lowered }
        let matches = exact.isEmpty ? items.filter { identifier($0).lowercased().hasPrefix(lowered) } : exact
        guard let first = matches.first else {
            throw ClassroomError(.notAssigned, "no assignment '\(key)' in \(place); `clsfile assignments` lists them")
        }
        guard matches.count == 1 else {
            let titles = matches.map { "'\(title($0))'" }.joined(separator: ", ")
            throw ClassroomError(
                .notAssigned, "'\(key)' names \(matches.count) assignments (\(titles)) in \(place); give more of the identifier")
        }
        return first
    }
}
