import BoundedCache
import Items
import SQLite
import Synchronization

/// Segments' documents and dictionaries, and recently used postings, shared by every
/// ``SearchIndex`` in the process. Segments are immutable, so an entry never goes stale;
/// entries of segments a merge removed are dropped when a search sees the new segment
/// list. Postings are kept up to a byte budget, least recently used first out.
final class SegmentCache: Sendable {
    static let shared = SegmentCache()

    private struct Key: Hashable {
        var file: String
        var segment: Int64
    }

    private struct PostingsKey: Hashable, Sendable {
        var file: String
        var segment: Int64
        var offset: Int
    }

    private struct State {
        var readers: [Key: SegmentReader] = [:]
        /// Rowids of a segment found gone: never live again, as rowids are not reused.
        var gone: [Key: Set<Int64>] = [:]
    }

    private let state = Mutex(State())
    private let postings = BoundedCache<PostingsKey, TermPostings>(capacityBytes: 256 << 20)

    /// Bytes of postings kept at most (default 256 MiB).
    var postingsBudget: Int {
        get { postings.capacityBytes }
        set { postings.capacityBytes = newValue }
    }

    var postingsBytes: Int { postings.usage.bytes }

    func reader(file: String, info: SegmentInfo, connection: SQLiteConnection) throws -> SegmentReader {
        let key = Key(file: file, segment: info.id)
        if let cached = state.withLock({ $0.readers[key] }) { return cached }
        let reader = try SegmentReader(info: info, connection: connection)
        state.withLock { $0.readers[key] = reader }
        return reader
    }

    /// Forgets the segments of `file` that are not in `current`.
    func retain(file: String, current: Set<Int64>) {
        let merged = state.withLock { state in
            let gone = state.readers.keys.filter { $0.file == file && !current.contains($0.segment) }
            for key in gone {
                state.readers[key] = nil
                state.gone[key] = nil
            }
            return !gone.isEmpty
        }
        // Only when segments went: a search calls this each time, and the postings are many.
        if merged { postings.removeAll { $0.file == file && !current.contains($0.segment) } }
    }

    /// The rowids of a segment known to be gone.
    func gone(file: String, segment: Int64) -> Set<Int64> {
        state.withLock { $0.gone[Key(file: file, segment: segment)] ?? [] }
    }

    func markGone(file: String, segment: Int64, rowids: [Int64]) {
        guard !rowids.isEmpty else { return }
        state.withLock { $0.gone[Key(file: file, segment: segment), default: []].formUnion(rowids) }
    }

    func postings(file: String, segment: SegmentReader, term: SegmentReader.Term, connection: SQLiteConnection) throws -> TermPostings {
        let key = PostingsKey(file: file, segment: segment.info.id, offset: term.postings.lowerBound)
        if let cached = postings.value(key) { return cached }
        let bytes = try SegmentStore.read(connection, segment: segment.info.id, range: term.postings)
        let read = TermPostings(bytes: bytes, blocks: term.blocks, documents: term.documents)
        // One list never takes more than a quarter of the budget.
        if bytes.count <= postings.capacityBytes / 4 { postings.insert(read, bytes: bytes.count, for: key) }
        return read
    }
}
