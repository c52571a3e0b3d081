import ArgumentParser
import ClassSync
import ClassWire
import Classroom
import CommandSupport
import Crypto
import ForwardedCommands
import Foundation
import OpenClassKit
import ProgramBasics

#if canImport(Glibc)
import Glibc
#endif

/// `clsfile catalog keygen|publish|list|delete`: a content tool's side of the Catalog API.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CatalogArguments.configuration(subcommands: [Keygen.self, Publish.self, List.self, Delete.self, Token.self])

    struct Keygen: AsyncParsableCommand {
        static let configuration = CatalogArguments.Keygen.configuration

        @OptionGroup var arguments: CatalogArguments.Keygen

        func run() async throws {
            try await reportingFailures {
                let key = P256.Signing.PrivateKey()
                let publicFile = arguments.out + ".pub"
                if FileManager.default.fileExists(atPath: publicFile) {
                    throw SyncError(
                        .invalidValue, "cannot write \(publicFile): it exists already; keygen never overwrites a key: give another --out")
                }
                // Each file made here and only here (never one that exists, nor through a link),
                // the private one readable by you alone from the start.
                try Self.create(arguments.out, mode: 0o600, contents: key.pemRepresentation)
                try Self.create(publicFile, mode: 0o644, contents: key.publicKey.pemRepresentation + "\n")
                let kid = Identity.keyIdentifier(of: key.publicKey.x963Representation)
                print("private key: \(arguments.out) (keep it secret); public key: \(publicFile)")
                print("give the public key to the class server's administrator, who runs:")
                print("  clsfile-server publisher add --team TEAM --kid \(kid) --public-key \(publicFile)")
            }
        }

        static func create(_ path: String, mode: mode_t, contents: String) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            guard descriptor >= 0 else {
                let reason =
                    errno == EEXIST
                    ? "it exists already; keygen never overwrites a key: give another --out" : String(cString: strerror(errno))
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
        static let configuration = CatalogArguments.Publish.configuration

        @OptionGroup var arguments: CatalogArguments.Publish

        func run() async throws {
            try await reportingFailures {
                let read: CourseManifest
                do {
                    read = try CourseManifest.read(from: URL(fileURLWithPath: arguments.manifest))
                } catch let error as CLSError {
                    throw SyncError(.invalidValue, error.message)
                }
                let client = try arguments.options.client()
                let shows = isatty(STDERR_FILENO) != 0
                let outcome = try await client.publish(read, progress: shows ? Self.showProgress : nil)
                if shows { FileHandle.standardError.write(Data("\n".utf8)) }
                print(
                    "published \(outcome.contexts) context\(outcome.contexts == 1 ? "" : "s") (\(outcome.changed) new or changed), \(outcome.thumbnails) thumbnail\(outcome.thumbnails == 1 ? "" : "s"); deleted \(outcome.deleted) not in the manifest; \(arguments.options.environment.rawValue) catalog of \(arguments.options.team) on \(client.serverURL.absoluteString)"
                )
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
        static let configuration = CatalogArguments.List.configuration

        @OptionGroup var arguments: CatalogArguments.List

        func run() async throws {
            try await reportingFailures {
                let contexts = try await arguments.options.client().contexts(under: arguments.path.map(Delete.identifiers))
                for context in contexts {
                    let data = context.data.description
                    let notes = [
                        data.isAssignable == false ? "not assignable" : nil,
                        context.data.thumbnailId.map { _ in "thumbnail" }
                    ].compactMap { $0 }
                    print(
                        "\(data.identifierPath.joined(separator: "/"))  \(TerminalText.escaped(data.title))  (\(data.type))"
                            + (notes.isEmpty ? "" : "  [\(notes.joined(separator: ", "))]"))
                }
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CatalogArguments.Delete.configuration

        @OptionGroup var arguments: CatalogArguments.Delete

        func run() async throws {
            try await reportingFailures {
                let status = try await arguments.options.client().delete(Self.identifiers(arguments.path))
                print("deleted \(status.count) context\(status.count == 1 ? "" : "s") (\(arguments.path) and its descendants)")
            }
        }

        static func identifiers(_ path: String) -> [String] {
            path.split(separator: "/").map(String.init)
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CatalogArguments.Token.configuration

        @OptionGroup var arguments: CatalogArguments.Token

        func run() async throws {
            try await reportingFailures {
                print(
                    try await CatalogToken.make(
                        key: try arguments.credentials.privateKey(), kid: arguments.credentials.kid, team: arguments.credentials.team,
                        lifetime: TimeInterval(arguments.minutes * 60)))
            }
        }
    }
}

extension CatalogArguments.Credentials {
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

extension CatalogArguments.Options {
    /// A client of the catalog these options name.
    func client() throws -> CatalogClient {
        try CatalogClient(
            serverURL: try SyncClient.serverURL(server), team: credentials.team, kid: credentials.kid,
            key: try credentials.privateKey(), environment: catalogEnvironment)
    }

    /// The catalog as the wire format names it.
    var catalogEnvironment: CatalogWire.Environment {
        get throws {
            guard let environment = CatalogWire.Environment(rawValue: environment.rawValue) else {
                throw SyncError(.invalidValue, "the class server has no \(environment.rawValue) catalog")
            }
            return environment
        }
    }
}
