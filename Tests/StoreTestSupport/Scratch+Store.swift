import Foundation
import OpenClassKit
import TestSupport

extension Scratch {
    /// The store file inside the folder.
    public var storeURL: URL { url.appendingPathComponent("store.sqlite") }

    /// A store on this folder's store file.
    public func store() -> CLSDataStore { CLSDataStore(storeURL: storeURL, configuration: .init(busyTimeout: 30)) }
}
