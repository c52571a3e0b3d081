import ContentDetectors

extension DetectorError {
    /// The exit code of each code, as sysexits names them: 66 (`EX_NOINPUT`) when the file is
    /// missing, unreadable or not a regular file, 65 (`EX_DATAERR`) when its content cannot be
    /// counted. `stats` exits with them, and `clsfile-main`'s commands (its `CommandFailure`).
    public static let exitCodes: [Code: Int32] = [
        .notARegularFile: 66, .unreadable: 66,
        .fileTooLarge: 65, .unsupportedFormat: 65, .corruptArchive: 65, .encryptedEntry: 65, .decompressionLimit: 65,
        .malformedDocument: 65, .libraryUnavailable: 65
    ]
}
