import Foundation
import FuzzTargets

// The fuzzing harness: libFuzzer runs one target, which $CLSFILE_FUZZ_TARGET names (Scripts/fuzz
// sets it; `list` prints the targets). Which `main` starts the process depends on how the
// program is linked (SwiftPM renames this file's, and libFuzzer brings its own); both end in
// libFuzzer's driver calling `LLVMFuzzerTestOneInput` below.

/// The target of this run, chosen at the first input.
let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["CLSFILE_FUZZ_TARGET"] ?? ""
    if name == "list" {
        // One line a target, tab-separated, for Scripts/fuzz: name, extension, seed extensions, summary.
        for target in FuzzTarget.all {
            print([target.name, target.fileExtension, target.seedExtensions.joined(separator: ","), target.summary].joined(separator: "\t"))
        }
        exit(0)
    }
    guard let chosen = FuzzTarget.named(name) else {
        FileHandle.standardError.write(Data("clsfile-fuzz: set CLSFILE_FUZZ_TARGET to one of \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
        exit(64)
    }
    return chosen
}()

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver (LLVM 11 and later), for when this file's `main` starts the process.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
