import ArgumentParser
import Classroom
import CommandSupport
import Crypto
import Foundation
import OpenClassKit

/// `clsfile role [teacher|student|off]`: development mode, as in ClassKit.
struct RoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role",
        abstract: "Show or set the development-mode role: teacher, student or off.",
        discussion: """
            Like ClassKit's development mode, this lets one person act as a teacher or a student on \
            one machine. Each role keeps its data in its own store \
            ($XDG_DATA_HOME/clsfile/teacher/store.sqlite, …/student/store.sqlite; with the role off, \
            …/clsfile/store.sqlite), so switching never mixes them. A student gives a display name \
            once, with --name: it is what the teacher sees. Setting the teacher or student role makes \
            that role's identity keys, once, beside its store (identity.json, readable only by you): \
            a student signs submissions with them, and a teacher's handouts carry the key that \
            submissions are encrypted to. The line printed gives the key's fingerprint, which a \
            teacher compares when trusting a student's new key. With no role given, prints the role now. \
            With --public-key, prints only the role's two public keys in PEM instead, the signing key \
            first and the recipient key (the one handouts carry) second, which a class server's \
            administrator registers for a teacher (clsfile-server teacher add --public-key FILE).
            """)

    @Argument(help: ArgumentHelp("teacher, student or off.", valueName: "role"))
    var role: DeveloperMode.Role?

    @Option(name: .long, help: ArgumentHelp("The name a teacher sees on your work.", valueName: "name"))
    var name: String?

    @Flag(name: .long, help: "Print only the role's public keys, signing then recipient, in PEM.")
    var publicKey = false

    func validate() throws {
        if let name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--name cannot be empty.")
        }
        if name != nil && role == nil { throw ValidationError("--name goes with a role: clsfile role student --name NAME.") }
    }

    func run() async throws {
        try await reportingFailures {
            var mode: DeveloperMode
            do {
                mode = try DeveloperMode.current()
            } catch let error as CLSError where role != nil {
                Diagnostics.warn("\(error.message); writing new settings with a new account identifier")
                mode = DeveloperMode()
            }
            if let role {
                mode.role = role
                if let name { mode.displayName = name.trimmingCharacters(in: .whitespacesAndNewlines) }
                if role == .student && mode.displayName == nil {
                    throw ClassroomError(
                        .wrongRole, "a student gives a display name once, which the teacher sees: clsfile role student --name \"Your Name\""
                    )
                }
                try mode.save()
            }
            if publicKey {
                guard mode.role != .off else {
                    throw ClassroomError(
                        .wrongRole, "with the role off there are no identity keys: clsfile role teacher --public-key (or student)")
                }
                let identity = try RoleGate.identity(of: mode.role)
                print(identity.signingKey.publicKey.pemRepresentation)
                print(identity.agreementKey.publicKey.pemRepresentation)
                return
            }
            let store = try CLSDataStore.defaultStoreURL.path
            let name = mode.displayName.map { ", name \"\($0)\"" } ?? ""
            var key = ""
            if mode.role != .off {
                // Setting a role makes its keys; showing it only reads them.
                let url = Identity.url(for: mode.role)
                let identity = role == nil ? try? Identity.read(from: url) : try RoleGate.identity(of: mode.role)
                key = identity.map { "; key \(Identity.fingerprint(of: $0.signingPublicKey))" } ?? ""
            }
            print("role: \(mode.role.rawValue)\(name); store: \(store)\(key)")
        }
    }
}

extension DeveloperMode.Role: ExpressibleByArgument {}
