import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import Crypto
import Foundation
import OpenClassKit

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile catalog keygen|publish|list|delete`: a content tool's side of the Catalog API.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Publish a course manifest's contexts to a class server's catalog, list and delete them.",
        discussion: """
            A publisher makes a key pair once (keygen) and gives the public key to the class \
            server's administrator, who registers it for the team with a key id \
            (clsfile-server publisher add --team TEAM --kid KID --public-key KEY.pub). Each call \
            is signed with the private key; --environment development (the default) and \
            production are two separate catalogs: try content in development, then publish it \
            to production, which teachers assign from.
            """,
        subcommands: [Keygen.self, Publish.self, List.self, Delete.self, Token.self])

    /// The publisher's team, key id and private key.
    struct Credentials: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("Your team, as the administrator registered it.", valueName: "team"))
        var team: String

        @Option(name: .long, help: ArgumentHelp("Your key's id, as the administrator registered it.", valueName: "kid"))
        var kid: String

        @Option(name: .long, help: ArgumentHelp("The private key file that keygen wrote.", valueName: "key.pem"))
        var key: String

        /// The private key of the file keygen wrote.
        func privateKey() throws -> P256.Signing.PrivateKey {
            let text: String
            do {
                text = try String(contentsOfFile: key, encoding: .utf8)
            } catch {
                throw SyncError(.invalidValue, "cannot read the private key \(key): \(error.localizedDescription)")
            }
            guard let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: text) else {
                throw SyncError(.invalidValue, "\(key) holds no P-256 private key in PEM; clsfile catalog keygen writes one")
            }
            return privateKey
        }
    }

    /// The server, the publisher's credentials and the catalog.
    struct Options: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The class server's address, such as https://class.example.org.", valueName: "url"))
        var server: String

        @OptionGroup var credentials: Credentials

        @Option(name: .long, help: ArgumentHelp("development or production.", valueName: "environment"))
        var environment: CatalogWire.Environment = .development

        var team: String { credentials.team }

        func client() throws -> CatalogClient {
            try CatalogClient(serverURL: try SyncClient.serverURL(server), team: credentials.team, kid: credentials.kid,
                              key: try credentials.privateKey(), environment: environment)
        }
    }

    struct Keygen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a publisher's key pair: FILE (private, readable only by you) and FILE.pub.")

        @Option(name: .long, help: ArgumentHelp("Where to write the private key.", valueName: "file"))
        var out = "catalog-key.pem"

        func run() async throws {
            try await reportingFailures {
                let key = P256.Signing.PrivateKey()
                let publicFile = out + ".pub"
                if FileManager.default.fileExists(atPath: publicFile) {
                    throw SyncError(.invalidValue, "cannot write \(publicFile): it exists already; keygen never overwrites a key: give another --out")
                }
                // Each file made here and only here (never one that exists, nor through a link),
                // the private one readable by you alone from the start.
                try Self.create(out, mode: 0o600, contents: key.pemRepresentation)
                try Self.create(publicFile, mode: 0o644, contents: key.publicKey.pemRepresentation + "\n")
                let kid = Identity.keyIdentifier(of: key.publicKey.x963Representation)
                print("private key: \(out) (keep it secret); public key: \(publicFile)")
                print("give the public key to the class server's administrator, who runs:")
                print("  clsfile-server publisher add --team TEAM --kid \(kid) --public-key \(publicFile)")
            }
        }

        static func create(_ path: String, mode: mode_t, contents: String) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            guard descriptor >= 0 else {
                let reason = errno == EEXIST ? "it exists already; keygen never overwrites a key: give another --out" : String(cString: strerror(errno))
                throw SyncError(.invalidValue, "cannot write \(path): \(reason)")
            }
            defer { close(descriptor) }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
            do {
                try handle.write(contentsOf: Data(contents.utf8))
                try handle.synchronize()
            } catch {
                throw SyncError(.invalidValue, "cannot write \(path): \(error.localizedDescription)")
            }
        }
    }

    struct Publish: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the catalog equal to a course manifest: its contexts, parents first, then its thumbnails.",
            discussion: """
                Sends the contexts in requests of at most 200, parents before children, then each \
                context's thumbnail (an entry's "thumbnail": a PNG or JPEG of 330×330 pixels, \
                relative to the manifest), then deletes what the catalog holds beyond the \
                manifest. A request the server cannot take now is tried again with a growing \
                wait. Publishing the same manifest again changes nothing.
                """)

        @OptionGroup var options: Options

        @Argument(help: ArgumentHelp("The course manifest (JSON), as clsfile course reads it.", valueName: "manifest"))
        var manifest: String

        func run() async throws {
            try await reportingFailures {
                let read: CourseManifest
                do {
                    read = try CourseManifest.read(from: URL(fileURLWithPath: manifest))
                } catch let error as CLSError {
                    throw SyncError(.invalidValue, error.message)
                }
                let client = try options.client()
                let shows = isatty(STDERR_FILENO) != 0
                let outcome = try await client.publish(read, progress: shows ? Self.showProgress : nil)
                if shows { FileHandle.standardError.write(Data("\n".utf8)) }
                print("published \(outcome.contexts) context\(outcome.contexts == 1 ? "" : "s") (\(outcome.changed) new or changed), \(outcome.thumbnails) thumbnail\(outcome.thumbnails == 1 ? "" : "s"); deleted \(outcome.deleted) not in the manifest; \(options.environment.rawValue) catalog of \(options.team) on \(client.serverURL.absoluteString)")
            }
        }

        /// A bar on the terminal: the requests made of all.
        @Sendable static func showProgress(done: Int, total: Int) {
            let width = 30, filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\rpublishing [\(bar)] \(done)/\(total) requests".utf8))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the catalog's contexts, parents first, or those under PATH.")

        @OptionGroup var options: Options

        @Argument(help: ArgumentHelp("A context's identifier path, its identifiers joined by /.", valueName: "path"))
        var path: String?

        func run() async throws {
            try await reportingFailures {
                let contexts = try await options.client().contexts(under: path.map(Delete.identifiers))
                for context in contexts {
                    let data = context.data.description
                    let notes = [data.isAssignable == false ? "not assignable" : nil,
                                 context.data.thumbnailId.map { _ in "thumbnail" }].compactMap { $0 }
                    print("\(data.identifierPath.joined(separator: "/"))  \(TerminalText.escaped(data.title))  (\(data.type))"
                          + (notes.isEmpty ? "" : "  [\(notes.joined(separator: ", "))]"))
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a context of the catalog and its descendants.")

        @OptionGroup var options: Options

        @Argument(help: ArgumentHelp("The context's identifier path, its identifiers joined by /.", valueName: "path"))
        var path: String

        func run() async throws {
            try await reportingFailures {
                let status = try await options.client().delete(Self.identifiers(path))
                print("deleted \(status.count) context\(status.count == 1 ? "" : "s") (\(path) and its descendants)")
            }
        }

        static func identifiers(_ path: String) -> [String] {
            path.split(separator: "/").map(String.init)
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a token for the Catalog API, for calling it with another tool (curl -H \"Authorization: Bearer TOKEN\").")

        @OptionGroup var credentials: Credentials

        @Option(name: .long, help: ArgumentHelp("How long it is good for: 10 to 30.", valueName: "minutes"))
        var minutes = 30

        func validate() throws {
            guard (10...30).contains(minutes) else { throw ValidationError("--minutes is 10 to 30.") }
        }

        func run() async throws {
            try await reportingFailures {
                print(try await CatalogToken.make(key: try credentials.privateKey(), kid: credentials.kid, team: credentials.team,
                                                  lifetime: TimeInterval(minutes * 60)))
            }
        }
    }
}

extension CatalogWire.Environment: ExpressibleByArgument {}
