import Foundation
import Testing
@testable import ContentDetectors
import TestSupport

@Suite("Opened files")
struct SafeFileTests {
    @Test func aNameThatIsNotUTF8IsOpenedByItsBytes() throws {
        // "café.txt" in Latin-1: its bytes are what open takes, and what the path keeps.
        let dir = try Scratch()
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
        let bytes = Array(dir.url.path.utf8) + [UInt8(ascii: "/")] + name
        let fd = open(bytes.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        _ = "two words\n".withCString { write(fd, $0, strlen($0)) }
        close(fd)
        #expect(try DocumentAnalyzer().analyze(fileSystemPath: bytes).statistics.words == 2)

        let missing = Array(dir.url.path.utf8) + Array("/gon".utf8) + [0xE9] + Array(".txt".utf8)
        let error = detectorError { _ = try DocumentAnalyzer().analyze(fileSystemPath: missing) }
        #expect(error?.code == .unreadable)
        #expect(error?.message.contains(dir.url.path + "/gon\u{FFFD}.txt") == true, "\(error?.message ?? "")")
    }

    @Test func aPathIsOpenedAsGivenNotTidied() throws {
        // `essay.txt/` names no file (ENOTDIR), though a FilePath would drop the slash.
        let dir = try Scratch()
        let file = try dir.file("essay.txt", "three little words")
        let error = detectorError { _ = try DocumentAnalyzer().analyze(fileSystemPath: Array((file.path + "/").utf8)) }
        #expect(error?.code == .unreadable)
        #expect(error?.message.contains(file.path + "/ cannot be read") == true, "\(error?.message ?? "")")
        let doubled = Array(dir.url.path.utf8) + Array("//essay.txt".utf8)
        #expect(try DocumentAnalyzer().analyze(fileSystemPath: doubled).statistics.words == 3)
    }

    @Test(arguments: ["two words.txt", "100% done.txt", "naïve #1?.md", "%E9.txt"])
    func namesWithSpacesAndSignsAreOpened(name: String) throws {
        let dir = try Scratch()
        let url = try dir.file(name, "three little words")
        #expect(try DocumentAnalyzer().analyze(url).statistics.words == 3)
        #expect(try SafeFile(url: url, maximumSize: 1 << 20).path == url.path)
    }

    @Test(arguments: ["essay.docx", "archive.tar.gz", ".notes", "plain", "file.", "two words.TXT", "dir.d/inside"])
    func theExtensionIsFoundations(name: String) throws {
        let dir = try Scratch()
        try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("dir.d"), withIntermediateDirectories: true)
        let url = dir.url.appendingPathComponent(name)
        try Data("x".utf8).write(to: url)
        #expect(try SafeFile(url: url, maximumSize: 1 << 20).pathExtension == url.pathExtension)
    }
}
