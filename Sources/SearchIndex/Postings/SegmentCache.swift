import BoundedCache
import Items
import SQLite
import Synchronization

/// One index file's segments' documents and dictionaries (``SegmentReader``) and the rows of
/// each found gone, for its ``IndexReader``; and the recently used postings and frequent
/// terms' document bits of every file, under process-wide byte budgets. Segments are
/// immutable, so an entry never goes stale; a merged-away segment's entries are dropped
/// when a search sees the new segment list.
final class SegmentCache: Sendable {
    private struct PostingsKey: Hashable, Sendable {
        var file: String
        var segment: Int64
        var offset: Int
    }

    private struct State {
        var readers: [Int64: SegmentReader] = [:]
        /// Rowids of a segment found gone: never live again, as rowids are not reused.
        var gone: [Int64: Set<Int64>] = [:]
    }

    /// The file's identity, which keys its postings in the process-wide cache.
    let identity: String
    private let state = Mutex(State())
    private static let postings = BoundedCache<PostingsKey, TermPostings>(capacityBytes: 256 << 20)

    private struct TermBitsKey: Hashable, Sendable {
        var file: String
        var segment: Int64
        var term: [UInt8]
    }

    /// Dense terms' document bits per segment, at most 64 MiB in all (a term in every
    /// document of a segment of 1,000,000 takes 125 KB).
    private static let termBits = BoundedCache<TermBitsKey, [UInt64]>(capacityBytes: 64 << 20)

    init(identity: String) {
        self.identity = identity
    }

    /// Bytes of postings kept at most, for every file (default 256 MiB).
    static var postingsBudget: Int {
        get { postings.capacityBytes }
        set { postings.capacityBytes = newValue }
    }

    static var postingsBytes: Int { postings.usage.bytes }

    func reader(info: SegmentInfo, connection: SQLiteConnection) throws -> SegmentReader {
        if let cached = state.withLock({ $0.readers[info.id] }) { return cached }
        let reader = try SegmentReader(info: info, connection: connection)
        state.withLock { $0.readers[info.id] = reader }
        return reader
    }

    /// Forgets the segments that are not in `current`.
    func retain(current: Set<Int64>) {
        let merged = state.withLock { state in
            let gone = state.readers.keys.filter { !current.contains($0) }
            for segment in gone {
                state.readers[segment] = nil
                state.gone[segment] = nil
            }
            return !gone.isEmpty
        }
        // Only when segments went: a search calls this each time, and the postings are many.
        let file = identity
        if merged {
            Self.postings.removeAll { $0.file == file && !current.contains($0.segment) }
            Self.termBits.removeAll { $0.file == file && !current.contains($0.segment) }
        }
    }

    /// The bits of the documents of `segment` holding `term`, when kept.
    func termBits(segment: Int64, term: [UInt8]) -> [UInt64]? {
        Self.termBits.value(TermBitsKey(file: identity, segment: segment, term: term))
    }

    /// Keeps a dense term's document bits for the next search.
    func keep(termBits bits: [UInt64], segment: Int64, term: [UInt8]) {
        Self.termBits.insert(bits, bytes: bits.count * 8 + term.count + 64, for: TermBitsKey(file: identity, segment: segment, term: term))
    }

    /// The rowids of a segment known to be gone.
    func gone(segment: Int64) -> Set<Int64> {
        state.withLock { $0.gone[segment] ?? [] }
    }

    func markGone(segment: Int64, rowids: [Int64]) {
        guard !rowids.isEmpty else { return }
        state.withLock { $0.gone[segment, default: []].formUnion(rowids) }
    }

    func postings(segment: SegmentReader, term: SegmentReader.Term, connection: SQLiteConnection) throws -> TermPostings {
        let key = PostingsKey(file: identity, segment: segment.info.id, offset: term.postings.lowerBound)
        if let cached = Self.postings.value(key) { return cached }
        let bytes = try SegmentStore.read(connection, segment: segment.info.id, range: term.postings)
        let read = TermPostings(bytes: bytes, blocks: term.blocks, documents: term.documents)
        // One list never takes more than a quarter of the budget.
        if bytes.count <= Self.postings.capacityBytes / 4 { Self.postings.insert(read, bytes: bytes.count, for: key) }
        return read
    }
}
