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

    private struct PostingsKey: Hashable {
        var file: String
        var segment: Int64
        var offset: Int
    }

    private struct State {
        var readers: [Key: SegmentReader] = [:]
        /// Rowids of a segment found gone: never live again, as rowids are not reused.
        var gone: [Key: Set<Int64>] = [:]
        var postings: [PostingsKey: (value: TermPostings, used: UInt64)] = [:]
        var postingsBytes = 0
        var clock: UInt64 = 0
        var budget = 256 << 20
    }

    private let state = Mutex(State())

    /// Bytes of postings kept at most (default 256 MiB).
    var postingsBudget: Int {
        get { state.withLock { $0.budget } }
        set { state.withLock { $0.budget = max(0, newValue) } }
    }

    var postingsBytes: Int { state.withLock { $0.postingsBytes } }

    func reader(file: String, info: SegmentInfo, connection: SQLiteConnection) throws -> SegmentReader {
        let key = Key(file: file, segment: info.id)
        if let cached = state.withLock({ $0.readers[key] }) { return cached }
        let reader = try SegmentReader(info: info, connection: connection)
        state.withLock { $0.readers[key] = reader }
        return reader
    }

    /// Forgets the segments of `file` that are not in `current`.
    func retain(file: String, current: Set<Int64>) {
        state.withLock { state in
            let gone = state.readers.keys.filter { $0.file == file && !current.contains($0.segment) }
            guard !gone.isEmpty else { return }
            let ids = Set(gone.map(\.segment))
            for key in gone {
                state.readers[key] = nil
                state.gone[key] = nil
            }
            for key in state.postings.keys where key.file == file && ids.contains(key.segment) {
                state.postingsBytes -= state.postings[key]!.value.byteCount
                state.postings[key] = nil
            }
        }
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
        let cached: TermPostings? = state.withLock { state in
            state.clock += 1
            guard let entry = state.postings[key] else { return nil }
            state.postings[key] = (entry.value, state.clock)
            return entry.value
        }
        if let cached { return cached }
        let bytes = try SegmentStore.read(connection, segment: segment.info.id, range: term.postings)
        let postings = TermPostings(bytes: bytes, blocks: term.blocks, documents: term.documents)
        state.withLock { state in
            guard bytes.count <= state.budget / 4 else { return }
            if state.postings[key] == nil {
                state.postings[key] = (postings, state.clock)
                state.postingsBytes += bytes.count
            }
            if state.postingsBytes > state.budget {
                // Drop the least recently used quarter or so.
                let order = state.postings.sorted { $0.value.used < $1.value.used }
                for (key, entry) in order {
                    guard state.postingsBytes > state.budget * 3 / 4 else { break }
                    state.postings[key] = nil
                    state.postingsBytes -= entry.value.byteCount
                }
            }
        }
        return postings
    }
}
