import ArgumentParser
import Foundation
import OpenClassKit

/// The options every command that reads or writes the store takes.
public struct StoreOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The store file; defaults to $CLSFILE_STORE, else the store of the development-mode role (see clsfile role), else $XDG_DATA_HOME/clsfile/store.sqlite.",
            valueName: "path"))
    public var store: String?

    public init() {}

    /// The store file these options name.
    public var storeURL: URL {
        get throws { try Self.storeURL(store) }
    }

    /// The data store these options name: the shared one without `--store`.
    public func dataStore() -> CLSDataStore {
        guard let store else { return CLSDataStore.shared }
        return CLSDataStore(storeURL: URL(fileSystemPathBytes: Array(store.utf8)))
    }

    /// The store file a `--store` value names, else the default one.
    ///
    /// `URL(fileSystemPathBytes:)` rather than `URL(fileURLWithPath:)`: it makes a relative path
    /// absolute with one `getcwd`, a fifth of a millisecond sooner in a hook process.
    /// - Throws: `CLSError` when the development-mode settings are damaged.
    public static func storeURL(_ store: String?) throws -> URL {
        try store.map { URL(fileSystemPathBytes: Array($0.utf8)) } ?? CLSDataStore.defaultStoreURL
    }
}
