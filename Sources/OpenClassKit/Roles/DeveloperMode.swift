import Foundation
import ProgramBasics

/// Who the person at this machine is acting as, the way ClassKit's development mode lets one person
/// try both sides of an assignment on one machine.
/// Not part of ClassKit, so without its `CLS` prefix.
///
/// Each role keeps its data in its own store (see ``storeURL(for:dataHome:)``), so a teacher's collected
/// work and a student's own files never mix, and a role's data can be reset on its own. The settings
/// live in `$XDG_CONFIG_HOME/clsfile/developer-mode.json` (`~/.config/clsfile/…`).
public struct DeveloperMode: Sendable, Equatable, Codable {
    /// A role in development mode.
    public enum Role: String, Sendable, Codable, CaseIterable {
        /// No role: the person's own data, in the store clsfile always used.
        case off
        /// A teacher: makes handouts, collects submissions, sees the class.
        case teacher
        /// A student: accepts handouts and submits work on them.
        case student
    }

    /// The role now in force.
    public var role: Role
    /// The name the person gave: what a teacher sees on a student's work.
    public var displayName: String?
    /// An opaque, random identifier of this person, made once; what leaves the machine instead of
    /// any account or user name.
    public var accountIdentifier: String

    /// Creates settings.
    public init(role: Role = .off, displayName: String? = nil, accountIdentifier: String = UUID().uuidString.lowercased()) {
        self.role = role
        self.displayName = displayName
        self.accountIdentifier = accountIdentifier
    }

    /// Where the settings are kept: `$XDG_CONFIG_HOME/clsfile/developer-mode.json`, else
    /// `~/.config/clsfile/developer-mode.json`.
    public static var settingsURL: URL {
        URL(fileURLWithPath: settingsPath)
    }

    /// The path of ``settingsURL``, worked out without making a URL (a hook's agent looks at the
    /// file on every call).
    public static var settingsPath: String {
        UserFolders.developerModeSettings
    }

    /// The folder that holds every role's data: `$XDG_DATA_HOME/clsfile`, else `~/.local/share/clsfile`.
    public static var dataHome: URL {
        URL(fileURLWithPath: UserFolders.dataHome).appendingPathComponent("clsfile")
    }

    /// Reads the settings; with no settings file, development mode is off.
    /// - Throws: ``CLSError`` `.invalidArgument` when the file exists but cannot be read or is not
    ///   settings, naming the file.
    public static func current(from url: URL = settingsURL) throws -> DeveloperMode {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return DeveloperMode()
        } catch {
            throw CLSError(
                .invalidArgument,
                "cannot read the development-mode settings \(url.path): \(error.localizedDescription); fix its permissions or set the role again"
            )
        }
        do {
            return try JSONDecoder().decode(DeveloperMode.self, from: data)
        } catch {
            throw CLSError(
                .invalidArgument,
                "the development-mode settings \(url.path) are damaged (not the settings JSON OpenClassKit writes); set the role again, which rewrites the file"
            )
        }
    }

    /// Writes the settings atomically, readable only by their owner.
    /// - Throws: ``CLSError`` `.invalidArgument` naming the file when it cannot be written.
    public func save(to url: URL = settingsURL) throws {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(self).write(to: url, options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        } catch {
            throw CLSError(
                .invalidArgument,
                "cannot write the development-mode settings \(url.path): \(error.localizedDescription); check the folder's permissions")
        }
    }

    /// The store of a role: `clsfile/store.sqlite` in the data home with development mode off, else
    /// `clsfile/teacher/store.sqlite` or `clsfile/student/store.sqlite`.
    public static func storeURL(for role: Role, dataHome: URL = dataHome) -> URL {
        switch role {
        case .off: dataHome.appendingPathComponent("store.sqlite")
        case .teacher, .student: dataHome.appendingPathComponent(role.rawValue).appendingPathComponent("store.sqlite")
        }
    }
}
