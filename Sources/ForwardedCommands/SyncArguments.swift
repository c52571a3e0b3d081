import ArgumentParser
import CommandSupport

/// What `clsfile sync [--watch]` takes; `clsfile-sync` runs it.
public struct SyncArguments: ForwardedArguments {
    /// Its name, summary and discussion.
    public static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the queued work on assigned documents to the class server (student role).",
        discussion: """
            Receives first the assignments the teachers of the classes joined made from the \
            server's catalog (the work under each assigned context reports to it from then on); \
            then sends the outbox in batches of up to 500 operations, oldest first; each batch leaves \
            the outbox once the server acknowledged it. When the server cannot be reached the rest \
            waits for the next sync. With --watch it keeps sending every --interval seconds until \
            Ctrl-C, retrying with a growing wait (up to 5 minutes) while the server is away. \
            --background is what hooks run: quiet, and nothing when another sync of the same store \
            is running.
            """)

    /// The most operations a request carries, and the default of `--batch-size`: ClassWire's
    /// `SyncWire.maximumOperations`, which this module cannot import (`clsfile` links this module,
    /// and not the wire format); CLITests checks that the two agree.
    public static let maximumBatchSize = 500

    @OptionGroup public var storeOptions: StoreOptions

    @Flag(name: .long, help: "Keep sending as work is recorded, until interrupted.")
    public var watch = false

    @Option(name: .long, help: ArgumentHelp("Seconds between sends with --watch.", valueName: "seconds"))
    public var interval: Double = 10

    @Flag(name: .long, help: "Quiet, and only when no other sync of this store runs (what hooks start).")
    public var background = false

    @Option(name: .long, help: ArgumentHelp("Operations a request, 1 to 500; smaller suits a slow link.", valueName: "count"))
    public var batchSize = Self.maximumBatchSize

    public init() {}

    public func validate() throws {
        guard (1...Self.maximumBatchSize).contains(batchSize) else {
            throw ValidationError("--batch-size must be between 1 and \(Self.maximumBatchSize), not \(batchSize)")
        }
        guard interval.isFinite, interval >= 0.1, interval <= 86_400 else {
            throw ValidationError("--interval must be between 0.1 and 86400 seconds, not \(interval)")
        }
    }
}
