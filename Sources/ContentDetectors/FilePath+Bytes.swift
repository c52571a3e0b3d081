import SystemPackage

extension FilePath {
    /// The path spelled by these bytes, which need not be UTF-8 (a file name is any bytes but `/`
    /// and NUL); for the package's programs, whose file names come from `argv` and from the store.
    package init(fileSystemBytes bytes: some Collection<UInt8>) {
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        self = terminated.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }
    }
}
