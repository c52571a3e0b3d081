import Classroom

/// How an activity item's value reads on a page.
enum ItemValue {
    /// Items whose quantity is a time in seconds, as clsfile's session recorder names them.
    private static let timeIdentifiers: Set<String> = ["open_time"]

    /// `412`, `3/4`, `yes`, `12m 30s` for a time.
    static func text(of item: StudentWork.Item) -> String {
        if item.kind == "quantity" && timeIdentifiers.contains(item.identifier) {
            return DisplayFormat.duration(item.value)
        }
        return item.kind == "quantity" ? DisplayFormat.number(item.value) : item.formattedValue
    }

    /// `quantity` → `Quantity`.
    static func kindName(of item: StudentWork.Item) -> String {
        item.kind.prefix(1).uppercased() + item.kind.dropFirst()
    }
}
