import Foundation

/// Jupyter notebooks: markdown cells are prose (read with the Markdown rules), code cells count as
/// code lines, and code cells with a non-null `execution_count` count as executed.
///
/// The notebook JSON is parsed whole, so notebooks are capped at ``AnalysisOptions/maximumNotebookSize``.
struct NotebookExtractor: TextExtractor {
    func extract(_ source: DocumentSource, into output: inout ExtractionOutput) throws {
        let limit = source.options.maximumNotebookSize
        if source.file.size > limit {
            throw DetectorError.fileTooLarge(source.path, size: source.file.size, limit: limit)
        }
        var data = Data()
        try source.forEachUTF8Chunk { data.append(contentsOf: $0) }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let cells = root["cells"] as? [[String: Any]] else {
            throw DetectorError.malformed(source.path, "not a notebook: no \"cells\" array")
        }
        output.isNotebook = true
        var markdown = MarkdownState()
        for cell in cells {
            let type = cell["cell_type"] as? String ?? ""
            let text: String
            if let parts = cell["source"] as? [String] { text = parts.joined() } else { text = cell["source"] as? String ?? "" }
            switch type {
            case "markdown":
                output.markdownCells += 1
                for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    markdown.line(Array(line.utf8), &output)
                }
                markdown.endBlock()
                output[.body].paragraph()
            case "code":
                output.codeCells += 1
                if let count = cell["execution_count"], !(count is NSNull) { output.executedCells += 1 }
                output.codeLines += text.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.count
            default:
                break
            }
        }
    }
}
