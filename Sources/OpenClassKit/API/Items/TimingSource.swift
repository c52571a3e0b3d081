/// The evidence that timed a `clsfile open` session: what its pulses, the signs of work, came from.
/// Not part of ClassKit.
///
/// `clsfile open` records it with the session's close as the additional quantity item
/// `ItemIdentifier.timingSource` ("Timing Source"), whose quantity is the
/// source's ``code``; the item is the last session's, as every item is last-writer-wins.
///
/// ```swift
/// let source = activity.additionalActivityItems
///     .compactMap { $0 as? CLSQuantityItem }
///     .first { $0.identifier == ItemIdentifier.timingSource }
///     .flatMap { TimingSource(code: $0.quantity) }
/// if source == .fileChanges { print(TimingSource.fileChanges.statement) }
/// ```
public enum TimingSource: String, Codable, Sendable, CaseIterable {
    /// Keystrokes relayed through `clsfile open`'s pseudo-terminal (terminal editors).
    case terminal
    /// The desktop's input idle time while one of the editor's windows had the focus (X11), and
    /// changes of the file.
    case desktop
    /// Changes of the file on disk only: no terminal relay ran and no desktop input reached the
    /// editor's windows, so typing between saves was not seen.
    case fileChanges

    /// The number stored as the item's quantity: 1 terminal, 2 desktop, 3 file changes.
    public var code: Double {
        switch self {
        case .terminal: 1
        case .desktop: 2
        case .fileChanges: 3
        }
    }

    /// The source a stored quantity stands for; nil for a number that is no code.
    public init?(code: Double) {
        guard let source = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = source
    }

    /// What timed the session, in words, as `show` lists the item.
    public var name: String {
        switch self {
        case .terminal: "keystrokes in the terminal"
        case .desktop: "desktop input to the editor's windows"
        case .fileChanges: "file changes only"
        }
    }

    /// The remark `clsfile open` and `clsfile show` add to a session's line when typing between
    /// saves could not be seen; nil for the sources that see it.
    public var statement: String? {
        guard self == .fileChanges else { return nil }
        return "time from file changes only (no terminal relay or desktop input seen)"
    }
}
