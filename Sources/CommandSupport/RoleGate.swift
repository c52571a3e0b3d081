import Classroom
import OpenClassKit

/// The development-mode role a command needs.
public enum RoleGate {
    /// The settings in force, when their role is the one a command needs.
    /// - Throws: ``ClassroomError`` `.wrongRole` naming the command and how to switch.
    public static func require(_ role: DeveloperMode.Role, for command: String) throws -> DeveloperMode {
        let mode = try DeveloperMode.current()
        guard mode.role == role else {
            let now = mode.role == .off ? "development mode is off" : "the role now is \(mode.role.rawValue)"
            throw ClassroomError(
                .wrongRole,
                "`clsfile \(command)` is for a \(role.rawValue), and \(now): run `clsfile role \(role.rawValue)\(role == .student ? " --name \"Your Name\"" : "")` first"
            )
        }
        return mode
    }

    /// The identity keys of a role, made the first time they are needed (``Identity``).
    /// - Throws: ``ClassroomError`` `.identity` or `.fileAccess` when they cannot be read or made.
    public static func identity(of role: DeveloperMode.Role) throws -> Identity {
        try Identity.readOrCreate(at: Identity.url(for: role)).identity
    }
}
