import Foundation

/// The editor to run: its words, found from `--editor`, `$VISUAL`, `$EDITOR` or a fallback.
public struct EditorCommand: Sendable, Equatable {
    /// The program and its arguments, without the file.
    public var words: [String]

    /// Splits a command line the way a shell would for plain words, quotes and backslashes.
    /// - Throws: ``RecorderError`` `.editorUnavailable` for an empty command or an unclosed quote.
    public init(parsing command: String) throws {
        var words: [String] = [], current = "", quote: Character?, escaped = false, inWord = false
        for character in command {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quote != "'" {
                escaped = true
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil, !escaped else {
            throw RecorderError(.editorUnavailable, "the editor command '\(command)' has an unclosed quote: fix --editor, VISUAL or EDITOR")
        }
        if inWord { words.append(current) }
        guard !words.isEmpty else {
            throw RecorderError(.editorUnavailable, "the editor command is empty: give --editor, or set VISUAL or EDITOR")
        }
        self.words = words
    }

    /// The editor from the option, else `$VISUAL`, else `$EDITOR`, else the first of `editor`,
    /// `nano`, `vim`, `vi` found on `PATH`.
    /// - Throws: ``RecorderError`` when none is given and none is installed.
    public static func resolve(option: String?, environment: [String: String]) throws -> EditorCommand {
        for candidate in [option, environment["VISUAL"], environment["EDITOR"]] {
            if let candidate, !candidate.trimmingCharacters(in: .whitespaces).isEmpty {
                return try EditorCommand(parsing: candidate)
            }
        }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["editor", "nano", "vim", "vi"] {
            if path.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }) {
                return try EditorCommand(parsing: name)
            }
        }
        throw RecorderError(
            .editorUnavailable,
            "no editor found: give --editor, or set VISUAL or EDITOR (none of editor, nano, vim, vi is on PATH)")
    }
}
