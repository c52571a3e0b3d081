import ArgumentParser
import ClassDashboard
import ClassServer
import ClassWire
import CommandSupport
import Foundation

/// `clsfile-server serve`: the API students sync to and teachers read.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the class server's API (run as the app role).",
        discussion: """
            Routes: POST /v1/join (a student joins with a code), POST /v1/sync (a student's \
            operations, at most 500 a request, 4 MiB a body), GET /v1/classes, POST \
            /v1/classes/ID/handouts (the class's teacher registers handouts), GET \
            /api/class-report.json?class=ID and /api/xapi.json?class=ID (the class's teacher; 200 \
            students a page, ?limit=N up to 1000, the next page's address in the Link header and \
            class-report.json's "next", ?after=ID), and the teacher's pages under /classes/ID/ (a token in ?token=, as clsfile class-report --link makes). Every request carries a JWT \
            signed with ES256 by the caller's device key and naming the server it is for (aud); \
            every refusal is JSON {id, code, message}.

            A token must name one of the server's origins, SCHEME://HOST:PORT (the port written \
            even when it is the default): by default the address it listens on, such as \
            http://127.0.0.1:8080; behind a reverse proxy, give the addresses students and teachers \
            use with --public-url (once for each), such as --public-url https://class.example.org, \
            and tokens for the listening address are refused. Listening on every address \
            (0.0.0.0, ::) needs --public-url.

            A connection that sends nothing for --idle-timeout seconds (30) while no request of it \
            is being answered, or whose request body has not all arrived --body-timeout seconds \
            (60) after its head, is closed.

            Connect as the app role given to migrate (the user in DATABASE_URL): serve refuses a \
            role that owns the schema or reads past row-level security, and a schema of another \
            version. Without --tls-cert and --tls-key it listens on loopback only, for a reverse \
            proxy that terminates TLS in front of it. Prints the address it listens on, then the \
            origins whose tokens it takes; SIGINT or SIGTERM stops it.

            The server keeps nothing between requests that another process could contradict, so \
            any number of serve processes may run on one database behind a proxy (nginx: see \
            Samples/class-server). With --read-database (or READ_DATABASE_URL), a streaming \
            replica of it, the teacher's pages, class-report.json and xapi.json read from the \
            replica, except a teacher's reads after their own write (an assignment from the \
            catalog, a handout registered), which read from the primary until the replica has replayed that write; \
            students' requests always go to the primary.
            """)

    @OptionGroup var databaseOptions: DatabaseOptions

    @OptionGroup var readDatabaseOptions: ReadDatabaseOptions

    @Option(name: .long, help: ArgumentHelp("The address to listen on; other than loopback needs TLS.", valueName: "address"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
    var port = 8080

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("A PEM file with the certificate chain.", valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("A PEM file with the certificate's private key.", valueName: "file"))
    var tlsKey: String?

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "An address students and teachers reach the server at, such as https://class.example.org behind a reverse proxy; repeat for each. Default: the address listened on.",
            valueName: "url"))
    var publicURLs: [String] = []

    @OptionGroup var timeoutOptions: TimeoutOptions

    func validate() throws {
        for url in publicURLs {
            do { _ = try ServerOrigin(url) } catch let error as WireError { throw ValidationError("--public-url: \(error.message).") }
        }
    }

    func run() async throws {
        try await reportingFailures {
            let address = try databaseOptions.address()
            let timeouts = ConnectionTimeouts(
                idleSeconds: timeoutOptions.idleSeconds, requestBodySeconds: timeoutOptions.requestBodySeconds)
            let readAddress = try readDatabaseOptions.address()
            let app = try ClassServerApp(
                configuration: .init(
                    host: host, port: port, tlsCertificate: tlsCertificate, tlsKey: tlsKey,
                    publicOrigins: try publicURLs.map(ServerOrigin.init), timeouts: timeouts),
                logger: .server)
            try await ServerDatabase.withDatabase(address, reading: readAddress, logger: .server) { database in
                try await database.checkReadyToServe()
                try await app.run(database: database) { port, origins in
                    let lines =
                        "clsfile-server listening on \(tlsCertificate == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(port)\n"
                        + "taking tokens made for \(origins.map(\.value).joined(separator: ", "))\n"
                    FileHandle.standardOutput.write(Data(lines.utf8))
                }
            }
        }
    }
}
