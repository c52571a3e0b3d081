@testable import ContentDetectors
import Foundation
import SystemPackage

// The tests make their files with Foundation and name them by URL; the detectors take paths.

extension DocumentAnalyzer {
    func analyze(_ url: URL, options: AnalysisOptions = AnalysisOptions()) throws -> DocumentReport {
        try analyze(FilePath(url.path), options: options)
    }
}

extension KindDetector {
    func kind(of url: URL) throws -> FileKind {
        try kind(of: FilePath(url.path))
    }
}

extension SafeFile {
    convenience init(url: URL, maximumSize: Int64) throws {
        try self.init(path: FilePath(url.path), maximumSize: maximumSize)
    }
}
