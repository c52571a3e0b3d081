import ArgumentParser

/// `--idle-timeout` and `--body-timeout` of clsfile's web servers (`clsfile serve`,
/// `clsfile-server serve`): how long a connection may hold the server without finishing a request.
public struct TimeoutOptions: ParsableArguments, Sendable {
    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Seconds a connection may send nothing while no request of it is answered before it is closed.", valueName: "seconds"))
    public var idleSeconds: Double = 30

    @Option(
        name: .customLong("body-timeout"),
        help: ArgumentHelp(
            "Seconds a request's body may take to arrive, from its head, before the connection is closed.", valueName: "seconds"))
    public var requestBodySeconds: Double = 60

    public init() {}

    public func validate() throws {
        for (name, seconds) in [("--idle-timeout", idleSeconds), ("--body-timeout", requestBodySeconds)]
        where !(0.1...86_400).contains(seconds) {
            throw ValidationError("\(name) must be 0.1 to 86400 seconds, not \(seconds).")
        }
    }
}
