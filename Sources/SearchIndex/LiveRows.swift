import SQLite
import Synchronization

/// Which documents of each segment are items now: what a count over every match (facets)
/// needs to leave out documents deleted or replaced since their segment was written, which
/// keep their postings until a merge. A segment's removed rows are listed beside it
/// (``SegmentStore/deletionsSchema``), as Lucene keeps a segment's deleted documents, so
/// its live documents are read without `items` (a scan of which took 50 s from disk at
/// 10,000,000 items): all of them where none was removed, else all but the few listed.
/// Expiry is asked of each search (``expired(at:connection:)``): the rows past their
/// expiry are the few the sweeper has not removed yet.
///
/// A segment's live bits are kept with the count of its removals they were made at (a
/// count only grows, so a reader of an older snapshot makes its own): a bit per document of
/// each segment searched with facets, for one index file (its ``IndexReader``).
final class LiveRows: Sendable {
    private struct Entry: Sendable {
        var deleted: Int
        var bits: [UInt64]
    }

    private let entries = Mutex<[Int64: Entry]>([:])

    /// The live ordinals of `segment` with `deleted` removals counted (its count in the
    /// caller's transaction), as bits, one word past the last; nil when all are live.
    func ordinals(_ segment: SegmentReader, deleted: Int, connection: SQLiteConnection) throws -> [UInt64]? {
        guard deleted > 0 else { return nil }
        let id = segment.info.id
        if let known = entries.withLock({ $0[id] }), known.deleted == deleted { return known.bits }
        let count = segment.documentCount
        var bits = [UInt64](repeating: ~0, count: count / 64 + 2)
        bits[count >> 6] = (UInt64(1) << UInt64(count & 63)) &- 1
        bits[bits.count - 1] = 0
        let rowids = segment.rowids
        for rowid in try SegmentStore.deletions(of: id, connection) {
            let ordinal = rowids.firstIndex(atLeast: rowid)
            if ordinal < rowids.count, rowids[ordinal] == rowid { bits[ordinal >> 6] &= ~(UInt64(1) << UInt64(ordinal & 63)) }
        }
        let made = bits
        entries.withLock { entries in
            // A reader on an older snapshot (fewer removals) does not replace a newer entry.
            if (entries[id]?.deleted ?? .min) <= deleted { entries[id] = Entry(deleted: deleted, bits: made) }
        }
        return made
    }

    /// Clears from `bits` (a segment's ordinals; its ascending `rowids`) those not among
    /// `live` (nil: all are) or whose rows are among `expired` (ascending).
    static func mask(_ bits: inout [UInt64], live: [UInt64]?, rowids: UnsafeBufferPointer<Int64>, expired: [Int64]) {
        if let live {
            for index in bits.indices { bits[index] &= index < live.count ? live[index] : 0 }
        }
        guard let first = rowids.first, let last = rowids.last else { return }
        var index = expired.firstIndex(atLeast: first)
        while index < expired.count, expired[index] <= last {
            let ordinal = rowids.firstIndex(atLeast: expired[index])
            if ordinal < rowids.count, rowids[ordinal] == expired[index], ordinal >> 6 < bits.count {
                bits[ordinal >> 6] &= ~(UInt64(1) << UInt64(ordinal & 63))
            }
            index += 1
        }
    }

    /// The rows whose items have expired at `now` (seconds since 1970), ascending: read
    /// from the index of expiries, which holds only the items that have one.
    static func expired(at now: Double, connection: SQLiteConnection) throws -> [Int64] {
        let statement = try connection.statement("SELECT rowid FROM items WHERE expires <= ?")
        defer { statement.reset() }
        statement.bind(1, now)
        var rowids: [Int64] = []
        while try statement.step() { rowids.append(statement.int64(0)) }
        rowids.sort()
        return rowids
    }

    /// Forgets the segments not in `current` (merged away).
    func keep(segments current: Set<Int64>) {
        entries.withLock { entries in
            guard entries.keys.contains(where: { !current.contains($0) }) else { return }
            entries = entries.filter { current.contains($0.key) }
        }
    }
}
