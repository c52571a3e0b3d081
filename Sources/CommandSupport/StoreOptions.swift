import ArgumentParser
import Foundation
import OpenClassKit

/// The options every command that reads or writes the store takes.
public struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store file; defaults to $CLSFILE_STORE, else the store of the development-mode role (see clsfile role), else $XDG_DATA_HOME/clsfile/store.sqlite.",
        valueName: "path"))
    public var store: String?

    public init() {}

    /// The store file these options name.
    public var storeURL: URL {
        get throws { try Self.storeURL(store) }
    }

    /// The data store these options name.
    /// - Parameter busyTimeout: How long a save waits for another process; the store's default when nil.
    public func dataStore(busyTimeout: TimeInterval? = nil) throws -> CLSDataStore {
        try Self.dataStore(store, busyTimeout: busyTimeout)
    }

    /// The store file a `--store` value names, else the default one.
    /// - Throws: `CLSError` when the development-mode settings are damaged.
    public static func storeURL(_ store: String?) throws -> URL {
        try store.map { URL(fileURLWithPath: $0) } ?? CLSDataStore.defaultStoreURL
    }

    /// The data store a `--store` value names, else the default one.
    public static func dataStore(_ store: String?, busyTimeout: TimeInterval?) throws -> CLSDataStore {
        guard store != nil || busyTimeout != nil else { return CLSDataStore.shared }
        var configuration = CLSDataStore.Configuration()
        if let busyTimeout { configuration.busyTimeout = busyTimeout }
        return CLSDataStore(storeURL: try storeURL(store), configuration: configuration)
    }
}
