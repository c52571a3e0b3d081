#if canImport(Glibc)
import CArguments
import Testing

/// The argument vector `CArguments` keeps from the start of the process, which the release
/// `clsfile`'s `CommandLine` reads in place of the standard library's search of /proc/self/maps.
/// This test process reads `CommandLine` the standard library's way, so the two are compared.
@Suite("Arguments kept at start")
struct StartArgumentsTests {
    @Test func theKeptArgumentsAreTheProcesssOwn() throws {
        var count: Int32 = 0
        let vector = try #require(clsfile_start_arguments(&count))
        let kept = (0..<Int(count)).map { String(cString: vector[$0]!) }
        #expect(kept == CommandLine.arguments)
        #expect(vector[Int(count)] == nil, "argv ends with a null pointer")
    }
}
#endif
