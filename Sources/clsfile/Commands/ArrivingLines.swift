#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lines of a file descriptor (standard input of `clsfile hook --stdio`), handed on as they
/// arrive: each call gives every complete line read so far, so that lines written together are
/// handled together.
struct ArrivingLines {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// How much of `pending` is known to hold no newline, so that a long line is not searched again at each read.
    private var searched = 0
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    private var ended = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The complete lines that have arrived, without their newlines, waiting for one when none has;
    /// at the end of the input, the last line even without a newline, then nil. Bytes that are
    /// not UTF-8 become U+FFFD, as `readLine()` makes them.
    mutating func next() -> [String]? {
        while true {
            if let last = pending[searched...].lastIndex(of: UInt8(ascii: "\n")) {
                let lines = pending[..<last].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    .map { String(decoding: $0, as: UTF8.self) }
                pending.removeSubrange(...last)
                // What is left follows the last newline.
                searched = pending.count
                return lines
            }
            searched = pending.count
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { (pending, searched) = ([], 0) }
                return [String(decoding: pending, as: UTF8.self)]
            }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                pending += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                // The end of the input, or a descriptor that cannot be read: nothing more will come.
                ended = true
            }
        }
    }
}
