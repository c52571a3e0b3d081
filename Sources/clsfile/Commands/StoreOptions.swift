import ArgumentParser
import Foundation
import OpenClassKit

/// The options every command that reads or writes the store takes.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The store file; defaults to $CLSFILE_STORE, else $XDG_DATA_HOME/clsfile/store.sqlite.",
        valueName: "path"))
    var store: String?

    /// The data store these options name.
    func dataStore() -> CLSDataStore {
        guard let store else { return CLSDataStore.shared }
        return CLSDataStore(storeURL: URL(fileURLWithPath: store))
    }
}
