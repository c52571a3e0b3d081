import Classroom
import OpenClassKit

/// How an activity item's value reads on a page.
enum ItemValue {
    /// `412`, `3/4`, `yes`, `12m 30s` for a time, what timed a session in words.
    static func text(of item: StudentWork.Item) -> String {
        let isPlainNumber =
            item.kind == ItemKind.quantity.rawValue && !ItemIdentifier.durations.contains(item.identifier)
            && item.identifier != ItemIdentifier.timingSource
        return isPlainNumber ? DisplayFormat.number(item.value) : item.formattedValue
    }

    /// `quantity` → `Quantity`.
    static func kindName(of item: StudentWork.Item) -> String {
        item.kind.prefix(1).uppercased() + item.kind.dropFirst()
    }
}
