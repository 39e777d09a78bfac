import Glibc
import Items
import TextUtilities

/// Interns terms (byte strings) to dense ids: an open-addressing hash table over one byte
/// arena, so that collecting a batch's postings allocates nothing per token.
///
/// A class over buffers it allocates itself: the look-up runs once per token of every
/// indexed text, and array storage there paid a uniqueness check and bounds checks on each
/// access. Used by one writer at a time (a ``SegmentBuilder``), never shared.
final class TermTable {
    /// The terms' bytes, one after another.
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount = 0
    private var arenaCapacity: Int
    /// Per id: where its bytes start in the arena (low 40 bits) and how many (high 24 bits),
    /// in one word so that finding a term's bytes is one memory access.
    private var spans: UnsafeMutablePointer<UInt64>
    private var idCapacity: Int
    private(set) var count = 0
    /// Per slot: the id there (low 32 bits; all ones when empty) and the high bits of its
    /// term's hash (high 32 bits), compared before the bytes so that a probe past another
    /// term costs no byte comparison; one word, so a probe is one memory access.
    private var slots: UnsafeMutablePointer<UInt64>
    private var mask: Int
    private static let empty = UInt64(UInt32.max)
    /// Terms longer than this are cut to it (no token of an indexed text comes near).
    static let maximumTermBytes = (1 << 24) - 1

    init(capacity: Int = 1 << 14) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        mask = size - 1
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Self.empty, count: size)
        idCapacity = max(16, capacity)
        spans = .allocate(capacity: idCapacity)
        arenaCapacity = max(64, capacity * 8)
        arena = .allocate(capacity: arenaCapacity)
    }

    deinit {
        arena.deallocate()
        spans.deallocate()
        slots.deallocate()
    }

    /// The id of `term`, added when new.
    func id(_ term: UnsafeRawBufferPointer) -> Int32 {
        let term = term.count > Self.maximumTermBytes ? UnsafeRawBufferPointer(start: term.baseAddress, count: Self.maximumTermBytes) : term
        let hash = Self.hash(term)
        let tag = hash & 0xFFFF_FFFF_0000_0000
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == Self.empty { break }
            if entry & 0xFFFF_FFFF_0000_0000 == tag, equals(Int(entry & 0xFFFF_FFFF), term) { return Int32(entry & 0xFFFF_FFFF) }
            slot = (slot + 1) & mask
        }
        let id = Int32(count)
        append(term)
        slots[slot] = tag | UInt64(UInt32(id))
        if count * 2 > mask + 1 { grow() }
        return id
    }

    func withBytes<T>(_ id: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(bytes(Int(id)))
    }

    @inline(__always)
    private func bytes(_ id: Int) -> UnsafeRawBufferPointer {
        let span = spans[id]
        return UnsafeRawBufferPointer(start: arena + Int(span & 0xFF_FFFF_FFFF), count: Int(span >> 40))
    }

    private func append(_ term: UnsafeRawBufferPointer) {
        if count == idCapacity {
            idCapacity *= 2
            spans = Self.grown(spans, count: count, to: idCapacity)
        }
        if arenaCount + term.count > arenaCapacity {
            arenaCapacity = max(arenaCapacity * 2, arenaCount + term.count)
            arena = Self.grown(arena, count: arenaCount, to: arenaCapacity)
        }
        if let source = term.baseAddress { (arena + arenaCount).update(from: source.assumingMemoryBound(to: UInt8.self), count: term.count) }
        spans[count] = UInt64(term.count) << 40 | UInt64(arenaCount)
        arenaCount += term.count
        count += 1
    }

    private static func grown<T>(_ old: UnsafeMutablePointer<T>, count: Int, to capacity: Int) -> UnsafeMutablePointer<T> {
        let new = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        new.moveInitialize(from: old, count: count)
        old.deallocate()
        return new
    }

    @inline(__always)
    private func equals(_ id: Int, _ term: UnsafeRawBufferPointer) -> Bool {
        let stored = bytes(id)
        guard stored.count == term.count else { return false }
        guard stored.count > 0, let a = stored.baseAddress, let b = term.baseAddress else { return true }
        // Terms are short: eight bytes at a time inline, memcmp only for long ones.
        guard stored.count <= 24 else { return memcmp(a, b, stored.count) == 0 }
        var offset = 0
        while offset + 8 <= stored.count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < stored.count {
            if a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset += 1
        }
        return true
    }

    private func grow() {
        let size = (mask + 1) * 2
        slots.deallocate()
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Self.empty, count: size)
        mask = size - 1
        for id in 0..<count {
            let hash = Self.hash(bytes(id))
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != Self.empty { slot = (slot + 1) & mask }
            slots[slot] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(UInt32(id))
        }
    }

    /// Terms are short, and a byte-at-a-time hash was a visible part of indexing.
    @inline(__always)
    static func hash(_ term: UnsafeRawBufferPointer) -> UInt64 { WordHash.hash(term) }

    /// Ids in byte order of their terms. Each term's first 8 bytes, big-endian and padded
    /// with zeros, order it as its bytes do unless two prefixes are equal: only then are the
    /// bytes compared (most comparisons of a sort never reach memcmp).
    func sortedIDs() -> [Int32] {
        let keyed = (0..<Int32(count)).map { id -> (prefix: UInt64, id: Int32) in
            let term = bytes(Int(id))
            var prefix: UInt64 = 0
            for offset in 0..<8 {
                prefix <<= 8
                if offset < term.count { prefix |= UInt64(term[offset]) }
            }
            return (prefix, id)
        }
        return keyed.sorted { a, b in
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            return compareBytes(bytes(Int(a.id)), bytes(Int(b.id))) < 0
        }.map(\.id)
    }
}
