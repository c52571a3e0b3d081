import Logging

extension Logger {
    /// What the tests' databases log, as the server's own database logger did before it took one.
    static let tests = Logger(label: "clsfile-server-tests.database")
}
