import TextUtilities

/// Interns terms (byte strings) to dense ids: an open-addressing hash table over one byte
/// arena, so that collecting a batch's postings allocates nothing per token.
struct TermTable {
    private var arena: [UInt8] = []
    private(set) var starts: [Int32] = []
    private(set) var lengths: [Int32] = []
    private var slots: [Int32]
    private var mask: Int

    init(capacity: Int = 1 << 14) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    var count: Int { starts.count }

    /// The id of `term`, added when new.
    mutating func id(_ term: UnsafeRawBufferPointer) -> Int32 {
        let hash = FNV1a.hash(term)
        var slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
        while true {
            let found = slots[slot]
            if found < 0 { break }
            if equals(Int(found), term) { return found }
            slot = (slot + 1) & mask
        }
        let id = Int32(starts.count)
        starts.append(Int32(arena.count))
        lengths.append(Int32(term.count))
        arena.append(contentsOf: term)
        slots[slot] = id
        if starts.count * 2 > slots.count { grow() }
        return id
    }

    private func equals(_ id: Int, _ term: UnsafeRawBufferPointer) -> Bool {
        guard Int(lengths[id]) == term.count else { return false }
        return arena.withUnsafeBytes { compareBytes(UnsafeRawBufferPointer(rebasing: $0[Int(starts[id])..<(Int(starts[id]) + term.count)]), term) == 0 }
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        mask = slots.count - 1
        for id in starts.indices {
            let hash = withBytes(Int32(id)) { FNV1a.hash($0) }
            var slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }

    func withBytes<T>(_ id: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try arena.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[Int(starts[Int(id)])..<(Int(starts[Int(id)]) + Int(lengths[Int(id)]))])) }
    }

    /// Ids in byte order of their terms. Each term's first 8 bytes, big-endian and padded
    /// with zeros, order it as its bytes do unless two prefixes are equal: only then are the
    /// bytes compared (most comparisons of a sort never reach memcmp).
    func sortedIDs() -> [Int32] {
        arena.withUnsafeBytes { arena in
            let keyed = (0..<Int32(starts.count)).map { id -> (prefix: UInt64, id: Int32) in
                let start = Int(starts[Int(id)])
                var prefix: UInt64 = 0
                for offset in 0..<8 {
                    prefix <<= 8
                    if offset < Int(lengths[Int(id)]) { prefix |= UInt64(arena[start + offset]) }
                }
                return (prefix, id)
            }
            return keyed.sorted { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let x = UnsafeRawBufferPointer(rebasing: arena[Int(starts[Int(a.id)])..<(Int(starts[Int(a.id)]) + Int(lengths[Int(a.id)]))])
                let y = UnsafeRawBufferPointer(rebasing: arena[Int(starts[Int(b.id)])..<(Int(starts[Int(b.id)]) + Int(lengths[Int(b.id)]))])
                return compareBytes(x, y) < 0
            }.map(\.id)
        }
    }
}
