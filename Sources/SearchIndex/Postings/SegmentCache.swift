import BoundedCache
import Items
import SQLite
import Synchronization

/// One index file's segments (``SegmentReader``, mapped from their files) and the rows of
/// each found gone, for its ``IndexReader``; and the frequent terms' document bits of every
/// file, under a process-wide byte budget. Postings are read in place from the mapped
/// segments: the page cache keeps what is used, as it does for Lucene's and Tantivy's
/// segment files. Segments are immutable, so an entry never goes stale; a merged-away
/// segment's entries are dropped when a search sees the new segment list.
final class SegmentCache: Sendable {
    private struct State {
        var readers: [Int64: SegmentReader] = [:]
        /// Rowids of a segment found gone: never live again, as rowids are not reused.
        var gone: [Int64: Set<Int64>] = [:]
    }

    /// The file's identity, which keys its postings in the process-wide cache.
    let identity: String
    private let state = Mutex(State())

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

    func postings(segment: SegmentReader, term: SegmentReader.Term) -> TermPostings {
        TermPostings(file: segment.file, range: term.postings, blocks: term.blocks, documents: term.documents)
    }
}
