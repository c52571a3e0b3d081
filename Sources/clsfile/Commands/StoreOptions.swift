import ArgumentParser
import Foundation
import OpenClassKit

/// The options every command that reads or writes the store takes.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store file; defaults to $CLSFILE_STORE, else $XDG_DATA_HOME/clsfile/store.sqlite.",
        valueName: "path"))
    var store: String?

    /// The store file these options name.
    var storeURL: URL {
        store.map { URL(fileURLWithPath: $0) } ?? CLSDataStore.defaultStoreURL
    }

    /// The data store these options name.
    func dataStore(busyTimeout: TimeInterval = 5) -> CLSDataStore {
        guard store != nil || busyTimeout != 5 else { return CLSDataStore.shared }
        return CLSDataStore(storeURL: storeURL, configuration: .init(busyTimeout: busyTimeout))
    }
}
