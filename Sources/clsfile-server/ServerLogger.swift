import Logging

extension Logger {
    /// The program's one logger, which the server and its database log to: notices and worse, on
    /// standard error.
    static let server: Logger = {
        var logger = Logger(label: "clsfile-server")
        logger.logLevel = .notice
        return logger
    }()
}
