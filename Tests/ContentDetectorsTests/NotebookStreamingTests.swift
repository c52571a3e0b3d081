import Foundation
import Testing
@testable import ContentDetectors
import TestSupport

@Suite("Notebooks as a stream")
struct NotebookStreamingTests {
    func analyze(_ json: String, options: AnalysisOptions = AnalysisOptions()) throws -> DocumentReport {
        let dir = try Scratch()
        return try DocumentAnalyzer().analyze(try dir.file("lab.ipynb", json), options: options)
    }

    @Test func outputsLargerThanTheCellCapStreamBy() throws {
        // 2 MiB of output, a 64 KiB cap: only cell sources are held.
        let image = String(repeating: "iVBORw0KGgo", count: 200_000)
        let json = """
            {"cells": [{"cell_type": "code", "execution_count": 4, "metadata": {"tags": ["a]", "{b"]},
              "outputs": [{"data": {"image/png": "\(image)"}, "output_type": "display_data"}], "source": ["plot(x)\\n", "show()"]},
              {"cell_type": "markdown", "metadata": {}, "source": "Two words"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
            """
        let r = try analyze(json, options: AnalysisOptions(maximumNotebookSize: 64 << 10))
        #expect(r.notebookCells == NotebookCells(code: 1, executed: 1, markdown: 1))
        #expect(r.codeLines == 2)
        #expect(r.statistics.words == 2)
    }

    @Test func keysInAnyOrderAndEscapesAreRead() throws {
        let json = #"""
            {"nbformat": 4, "cells": [
              {"source": ["Caf\u00e9 na\u00efve \ud83d\ude00 smile\n", "\n", "    code line\n", "tab\there \"quoted\" end"], "metadata": {"x": [[{"y": "\"]"}]]}, "cell_type": "markdown"},
              {"outputs": [], "execution_count": null, "source": "a = 1\r\n\r\nb = 2", "cell_type": "code"},
              {"cell_type": "raw", "source": "not counted at all"}
            ]}
            """#
        let r = try analyze(json)
        #expect(r.notebookCells == NotebookCells(code: 1, executed: 0, markdown: 1))
        // "Café naïve 😀 smile" has 3 words (the emoji is no word), the indented line is code,
        // "tab here "quoted" end" has 4.
        #expect(r.statistics.words == 7)
        #expect(r.codeLines == 3)
    }

    @Test func aCellAboveTheCapIsRefused() throws {
        let json = "{\"cells\": [{\"cell_type\": \"markdown\", \"source\": \"\(String(repeating: "word ", count: 1000))\"}]}"
        let error = detectorError { _ = try analyze(json, options: AnalysisOptions(maximumNotebookSize: 1024)) }
        #expect(error?.code == .fileTooLarge)
        #expect(error?.message.contains("has a notebook cell whose source is above the 1024-byte limit") == true)
    }

    @Test(arguments: [
        "{\"cells\": [{\"cell_type\": \"code\", \"source\": \"x", "{\"metadata\": {}}",
        "{\"cells\": [" + String(repeating: "[", count: 100_000)
    ])
    func malformedNotebooksAreReported(_ json: String) throws {
        let error = detectorError { _ = try analyze(json) }
        #expect(error?.code == .malformedDocument, "\(json.prefix(40))")
    }
}
