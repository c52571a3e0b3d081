import ArgumentParser
import CommandSupport

/// What `clsfile status` takes; `clsfile-sync` runs it.
public struct StatusArguments: ForwardedArguments {
    /// Its name and summary.
    public static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the class server this store syncs to, its classes joined, what waits to be sent, and the last sync.")

    @OptionGroup public var storeOptions: StoreOptions

    public init() {}
}
