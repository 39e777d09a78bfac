import Glibc
import Items

/// A direct-mapped cache of word → stem for ``Stemmers``: slots of fixed size in one
/// allocation, so a hit costs a hash and a compare and never allocates. Words and stems of
/// up to 30 bytes are kept; a slot is simply overwritten by the next word that maps to it.
/// It starts at 8,192 slots (512 KiB), enough for the words of queries, and doubles, emptied,
/// each time it has stored twice its slots, up to 65,536 (4 MiB): an indexer meets a
/// language's whole vocabulary (tens of thousands of words), and a Snowball call costs
/// about twenty look-ups. Owned by one ``Stemmers`` and used under its lock.
final class StemCache {
    enum Lookup {
        case stem(UnsafeRawBufferPointer)
        /// The word is its own stem.
        case unstemmed
        case miss
    }

    static let initialSlots = 8192
    static let maximumSlots = 65_536
    static let maximumBytes = 30
    /// Per slot: word length, stem length (`unstemmedMark`: none), language, then the word's
    /// and the stem's bytes.
    private static let slotBytes = 3 + 2 * maximumBytes + 1
    private static let unstemmedMark: UInt8 = 0xFF
    private(set) var slots: Int
    private var storage: UnsafeMutableRawPointer
    /// Stores since the cache last grew.
    private var stores = 0

    init() {
        slots = Self.initialSlots
        storage = Self.allocate(slots)
    }

    deinit { storage.deallocate() }

    private static func allocate(_ slots: Int) -> UnsafeMutableRawPointer {
        let storage = UnsafeMutableRawPointer.allocate(byteCount: slots * slotBytes, alignment: 8)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: slots * slotBytes)
        return storage
    }

    private func slot(_ word: UnsafeRawBufferPointer, _ language: Int) -> UnsafeMutableRawPointer {
        var hash: UInt32 = 2_166_136_261 ^ UInt32(truncatingIfNeeded: language)
        for byte in word { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return storage + Int(hash & UInt32(slots - 1)) * Self.slotBytes
    }

    func look(_ word: UnsafeRawBufferPointer, language: Int) -> Lookup {
        guard word.count <= Self.maximumBytes, language < 255 else { return .miss }
        let entry = slot(word, language)
        let bytes = entry.assumingMemoryBound(to: UInt8.self)
        guard Int(bytes[0]) == word.count, bytes[2] == UInt8(language) + 1,
            memcmp(entry + 3, word.baseAddress!, word.count) == 0
        else { return .miss }
        if bytes[1] == Self.unstemmedMark { return .unstemmed }
        return .stem(UnsafeRawBufferPointer(start: entry + 3 + Self.maximumBytes, count: Int(bytes[1])))
    }

    func store(_ word: UnsafeRawBufferPointer, language: Int, stem: UnsafeRawBufferPointer?) {
        guard word.count <= Self.maximumBytes, language < 255, (stem?.count ?? 0) <= Self.maximumBytes else { return }
        stores += 1
        if stores > 2 * slots, slots < Self.maximumSlots {
            storage.deallocate()
            slots *= 2
            storage = Self.allocate(slots)
            stores = 0
        }
        let entry = slot(word, language)
        let bytes = entry.assumingMemoryBound(to: UInt8.self)
        bytes[0] = UInt8(word.count)
        bytes[1] = stem.map { UInt8($0.count) } ?? Self.unstemmedMark
        bytes[2] = UInt8(language) + 1
        (entry + 3).copyMemory(from: word.baseAddress!, byteCount: word.count)
        if let stem, let base = stem.baseAddress { (entry + 3 + Self.maximumBytes).copyMemory(from: base, byteCount: stem.count) }
    }
}
