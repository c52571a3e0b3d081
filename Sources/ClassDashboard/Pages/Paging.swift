/// A window on a list that grows with what students send (a student's sessions and items, the
/// submissions kept aside): at most a page's worth of rows from an offset, with links to the rows
/// before and after, so that no page grows without bound however much one student sends.
///
/// The offset comes from the address (`?sessions-from=500`); one out of range shows the first rows.
struct Paging {
    /// The rows shown, as indices of the list.
    let shown: Range<Int>
    /// How many rows the list has.
    let total: Int
    /// The most rows shown at once.
    let size: Int

    /// At most `size` rows of a list of `total`, from `offset`.
    init(total: Int, size: Int, offset: Int) {
        let start = offset > 0 && offset < total ? offset : 0
        shown = start..<min(total, start + size)
        self.total = total
        self.size = size
    }

    /// Which rows are shown ("Sessions 501–1000 of 62000."), with links to the rows before and
    /// after; nothing when every row is shown.
    /// - Parameters:
    ///   - id: The paragraph's identifier; its links are `ID-previous` and `ID-next`.
    ///   - noun: What the rows are, capitalized: `Sessions`.
    ///   - link: The address of the rows from an offset.
    func navigation(id: String, noun: String, link: (Int) -> String) -> HTML {
        guard shown.count < total else { return "" }
        let previous: HTML =
            shown.lowerBound > 0
            ? " <a id=\"\(id)-previous\" href=\"\(link(max(0, shown.lowerBound - size)))\">Previous \(min(size, shown.lowerBound))</a>" : ""
        let next: HTML =
            shown.upperBound < total
            ? " <a id=\"\(id)-next\" href=\"\(link(shown.upperBound))\">Next \(min(size, total - shown.upperBound))</a>" : ""
        return
            "<p class=\"note paging\" id=\"\(id)\">\(noun) \(shown.lowerBound + 1)–\(shown.upperBound) of \(total).\(previous)\(next)</p>"
    }
}
