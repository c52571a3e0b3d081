import Synchronization

/// The ``CharacterClass`` of every scalar of the Basic Multilingual Plane, computed a block of
/// 256 scalars at a time, when text first uses the block.
///
/// Classifying all 65,536 scalars takes milliseconds, which every process that counts words paid
/// before its first non-ASCII character, or even with none; a document uses a few blocks.
///
/// `@unchecked Sendable`: a block's classes are written once, under `lock`, before its `ready`
/// flag is set with release ordering; they are read only after the flag is seen with acquire
/// ordering, and never written again.
final class BasicPlaneTable: @unchecked Sendable {
    /// The table of the process.
    static let shared = BasicPlaneTable()

    private let classes: UnsafeMutablePointer<UInt8>
    private let ready: UnsafeMutablePointer<Atomic<Bool>>
    private let lock = Mutex(())

    private init() {
        classes = .allocate(capacity: 0x10000)
        ready = .allocate(capacity: 0x100)
        for block in 0..<0x100 {
            (ready + block).initialize(to: Atomic(false))
        }
    }

    /// The class of a scalar value below 0x10000.
    @inline(__always)
    func classOf(_ value: UInt32) -> UInt8 {
        let block = Int(value >> 8)
        if !ready[block].load(ordering: .acquiring) { fill(block) }
        return classes[Int(value)]
    }

    @inline(never)
    private func fill(_ block: Int) {
        lock.withLock { _ in
            guard !ready[block].load(ordering: .relaxed) else { return }
            for value in (block << 8)..<((block + 1) << 8) {
                if value < 0x80 {
                    classes[value] = CharacterClass.ascii[value]
                } else if let scalar = Unicode.Scalar(UInt32(value)) {
                    classes[value] = CharacterClass.classify(scalar)
                } else {
                    classes[value] = CharacterClass.punctuation
                }
            }
            ready[block].store(true, ordering: .releasing)
        }
    }
}
