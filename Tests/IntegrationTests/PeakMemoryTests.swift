import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The benchmarks' memory figures are their programs' own, not the benchmark's (see `PeakMemory`).
@Suite("Peak memory, the program's own")
struct PeakMemoryTests {
    @Test func aSpawnedProgramIsMeasuredWithoutTheMemoryOfTheProcessThatStartsIt() throws {
        _ = try PeakMemory.gnuTime.require()
        let held = Self.touched(megabytes: 256)
        defer { held.deallocate() }
        // What wait4 says of a /bin/true spawned from a process that holds 256 MB: the 256 MB.
        #expect(Self.wait4Figure("/bin/true") >= 256 * 1024)
        let own = try PeakMemory.ofRun("/bin/true", [])
        #expect(own > 0 && own < 16 * 1024, "GNU time measured /bin/true at \(own) KiB")
    }

    @Test func theMemoryAProgramTouchesIsCounted() throws {
        let python3 = try Tool("python3", package: "python3").require()
        _ = try PeakMemory.gnuTime.require()
        let kilobytes = try PeakMemory.ofRun(python3.path, ["-c", "b = b'x' * (96 << 20); print(len(b))"])
        #expect(kilobytes >= 96 * 1024 && kilobytes < 200 * 1024, "python3 holding 96 MiB measured at \(kilobytes) KiB")
    }

    @Test func aProgramThatFailsIsNotMeasuredAsIfItRan() throws {
        _ = try PeakMemory.gnuTime.require()
        #expect(throws: PeakMemory.Failure.self) { try PeakMemory.ofRun("/bin/false", []) }
        #expect(throws: PeakMemory.Failure.self) { try PeakMemory.ofRun("/nonexistent/program", []) }
    }

    @Test func thisProcessReadsItsHighWaterMarkAtLeastAsHighAsWhatItHolds() {
        let held = Self.touched(megabytes: 128)
        defer { held.deallocate() }
        #expect(PeakMemory.ofThisProcess() >= 128 * 1024)
    }

    /// Memory written through, so that it is resident.
    static func touched(megabytes: Int) -> UnsafeMutableRawPointer {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: megabytes << 20, alignment: 4096)
        memset(memory, 1, megabytes << 20)
        return memory
    }

    /// The `ru_maxrss` that `wait4` returns for a program started with `posix_spawn`, in KiB.
    static func wait4Figure(_ program: String) -> Int {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(program), nil]
        defer { free(argv[0]) }
        guard posix_spawn(&pid, program, nil, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        return usage.ru_maxrss
    }
}
