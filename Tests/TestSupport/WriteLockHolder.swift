import Foundation
import Testing

/// Another process, `sqlite3`, that holds a store's write lock (`BEGIN IMMEDIATE`) from its
/// creation until ``release()``: what a busy store looks like to the code under test.
public final class WriteLockHolder {
    private let process = Process()
    private let input = Pipe()

    /// Starts `sqlite3` on the store and returns once it holds the lock (its `SELECT` answered).
    public init(store: URL) throws {
        process.executableURL = try Tool.sqlite3.require()
        process.arguments = [store.path]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE;\nSELECT 'locked';\n".utf8))
        _ = output.fileHandleForReading.availableData
    }

    /// Ends the transaction and waits for `sqlite3` to exit.
    public func release() {
        input.fileHandleForWriting.write(Data("COMMIT;\n.quit\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
