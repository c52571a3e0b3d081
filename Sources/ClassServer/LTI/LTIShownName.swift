import Foundation

/// A name an LMS gives (a person's, a course's) as the server keeps and shows it: the first of
/// the candidates that is not blank, without control characters, at most 200 characters (what
/// `account.name` and `class.name` take).
enum LTIShownName {
    static func first(of candidates: [String?], otherwise fallback: String) -> String {
        let name =
            candidates.compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty } ?? fallback
        return String(name.filter { $0.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control } }.prefix(200))
    }

    /// A person's name: `name`, else the given and family names, else their id.
    static func person(name: String?, given: String?, family: String?, id: String) -> String {
        first(of: [name, [given, family].compactMap { $0 }.joined(separator: " ")], otherwise: id)
    }
}
