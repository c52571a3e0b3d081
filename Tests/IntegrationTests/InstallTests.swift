import Foundation
import Testing
import TestSupport

/// `Scripts/install` and `Scripts/uninstall` into a temporary prefix and home folder, with the
/// binaries this test run built (`.ci/run` installs the release build the same way).
struct InstallTests {
    private static let package = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func installThenUninstallLeavesAWorkingClsfileThenNothing() throws {
        let scratch = try Scratch()
        let home = scratch.url.appendingPathComponent("home")
        let prefix = home.appendingPathComponent(".local")
        let binaries = try builtExecutable("clsfile").deletingLastPathComponent()
        let environment = ["HOME": home.path]
        let install = try run(
            Self.package.appendingPathComponent("Scripts/install"),
            ["--prefix", prefix.path, "--binaries", binaries.path], environment: environment)
        #expect(install.status == 0, "\(install.output)\(install.errorOutput)")

        // The installed binary records a session and reports it.
        let clsfile = prefix.appendingPathComponent("bin/clsfile")
        let file = try scratch.file("essay.txt", "three words here\n")
        let store = scratch.url.appendingPathComponent("store.sqlite").path
        for event in ["open", "close"] {
            let hook = try run(clsfile, ["hook", event, file.path, "--store", store])
            #expect(hook.status == 0, "\(hook.errorOutput)")
        }
        let shown = try run(clsfile, ["show", file.path, "--store", store])
        #expect(shown.output.contains("Word Count: 3"), "\(shown.output)")

        // Stripped, with a manual page per command, completions and the plugins where editors look.
        let symbols = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "nm \"$1\" 2>&1 | head -1", "sh", clsfile.path])
        #expect(symbols.output.contains("no symbols"), "\(symbols.output)")
        for path in [
            "share/man/man1/clsfile.1", "share/man/man1/clsfile-open.1", "share/man/man1/clsfile-hook.1",
            "share/bash-completion/completions/clsfile", "share/zsh/site-functions/_clsfile",
            "share/fish/vendor_completions.d/clsfile.fish", "bin/clsfile-serve", "bin/clsfile-sync",
            "share/nvim/site/pack/clsfile/start/clsfile/plugin/clsfile.lua",
            "share/emacs/site-lisp/clsfile.el"
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent(path).path), "\(path)")
        }
        for path in [".vim/pack/clsfile/start/clsfile/plugin/clsfile.vim", ".vscode/extensions/clsfile.clsfile-0.1.0/extension.js"] {
            #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(path).path), "\(path)")
        }
        let page = try String(contentsOf: prefix.appendingPathComponent("share/man/man1/clsfile-open.1"), encoding: .utf8)
        #expect(page.contains("--target-words"))

        let uninstall = try run(
            Self.package.appendingPathComponent("Scripts/uninstall"), ["--prefix", prefix.path],
            environment: environment)
        #expect(uninstall.status == 0, "\(uninstall.errorOutput)")
        // Files and links only: SwiftPM, run by the script with this HOME, leaves caches and folders.
        let left =
            FileManager.default.enumerator(atPath: home.path)?.compactMap { $0 as? String }.filter { path in
                !path.hasPrefix(".cache")
                    && (try? FileManager.default.attributesOfItem(atPath: home.appendingPathComponent(path).path)[.type]
                        as? FileAttributeType) != .typeDirectory
            } ?? []
        #expect(left.isEmpty, "uninstall leaves nothing of the install: \(left)")
        #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/clsfile").path))
    }

    @Test func aBadOptionIsAUsageError() throws {
        let result = try run(Self.package.appendingPathComponent("Scripts/install"), ["--prefx", "/tmp/x"])
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("unknown option '--prefx'"))
        let help = try run(Self.package.appendingPathComponent("Scripts/install"), ["--help"])
        #expect(help.status == 0 && help.output.contains("--prefix DIR"))
    }
}
