import SQLite
import Synchronization

/// Which rows of an index file are items now, with the expiry of those that have one: what
/// a count over every match (facets) needs to leave out documents deleted or replaced since
/// their segment was written, which keep their postings until a merge.
///
/// Kept up to date from the change log (``ChangeLog``): a commit lists the rows it removed,
/// replaced, re-dated or re-ranked, and only those are read again, with the rows written
/// since; a reader further behind than the log, or a commit that touched too many rows to
/// list, reads every row again (one scan of `items`). A bit per rowid from the oldest item's
/// (1,000,000 items take 125 KB), a bit per document of each segment searched, and 20 bytes
/// per item with an expiry (16 in the index-wide list, 4 in its segment's), for one index
/// file (its ``IndexReader``).
final class LiveRows: Sendable {
    /// Changes read from the log at most before the rows are read again instead.
    static let changesRead = 256

    struct Snapshot: Sendable {
        var rows: RowSet
        /// The expiry of each live row that has one.
        var expiring = Expiries()
        /// The highest rowid read and the change log's position when read.
        var covered: Int64 = 0
        var sequence: Int64 = 0
        /// Each segment's live ordinals, made once per snapshot (a new snapshot starts
        /// without them).
        private(set) var segments = SegmentLiveness()

        init(rows: RowSet) {
            self.rows = rows
        }

        /// The ordinals of a segment (its ascending `rowids`) whose rows are items, as bits,
        /// one word past the last, and those of them that expire, soonest first.
        func ordinals(segment: Int64, rowids: UnsafeBufferPointer<Int64>) -> SegmentLiveness.Entry {
            if let known = segments.entries.withLock({ $0[segment] }) { return known }
            var entry = SegmentLiveness.Entry(bits: [UInt64](repeating: 0, count: rowids.count / 64 + 2))
            // The segment's rowids and the expiring ones both ascend: one walk finds each
            // live ordinal's expiry.
            var expiringOrdinals: [(expires: Double, ordinal: Int32)] = []
            var next = expiring.rowids.firstIndex(atLeast: rowids.first ?? 0)
            for (ordinal, rowid) in rowids.enumerated() where rows.contains(rowid) {
                entry.bits[ordinal >> 6] |= UInt64(1) << UInt64(ordinal & 63)
                while next < expiring.rowids.count, expiring.rowids[next] < rowid { next += 1 }
                if next < expiring.rowids.count, expiring.rowids[next] == rowid { expiringOrdinals.append((expiring.times[next], Int32(ordinal))) }
            }
            expiringOrdinals.sort { $0.expires < $1.expires }
            entry.expiring = expiringOrdinals.map(\.ordinal)
            segments.entries.withLock { $0[segment] = entry }
            return entry
        }

        /// Clears from `bits` (a segment's ordinals; its ascending `rowids`) those that are not
        /// live, unexpired items at `now`. The segment's expiring ordinals come soonest first,
        /// so only those expired and one more are looked at, each expiry read from ``expiring``.
        func mask(_ bits: inout [UInt64], segment: Int64, rowids: UnsafeBufferPointer<Int64>, now: Double) {
            let entry = ordinals(segment: segment, rowids: rowids)
            for index in bits.indices { bits[index] &= index < entry.bits.count ? entry.bits[index] : 0 }
            for ordinal in entry.expiring {
                guard let expires = expiring.time(of: rowids[Int(ordinal)]), expires <= now else { break }
                bits[Int(ordinal) >> 6] &= ~(UInt64(1) << UInt64(ordinal & 63))
            }
        }

        /// Drops the segments' ordinals: the rows changed.
        mutating func forgetOrdinals() { segments = SegmentLiveness() }
    }

    /// Each segment's live ordinals in one snapshot of the rows.
    final class SegmentLiveness: Sendable {
        struct Entry: Sendable {
            var bits: [UInt64]
            /// The live ordinals that expire, soonest first (4 bytes each: their expiries are
            /// the snapshot's, read for the few a search looks at).
            var expiring: [Int32] = []
        }

        let entries = Mutex<[Int64: Entry]>([:])
    }

    private let kept = Mutex<Snapshot?>(nil)

    /// The live rows as `connection` reads them.
    func snapshot(connection: SQLiteConnection) throws -> Snapshot {
        let latest = try ChangeLog.latest(connection)
        let highest = try FilterCache.highestRowid(connection)
        let cached = kept.withLock { $0 }
        if let cached, cached.sequence == latest, cached.covered >= highest { return cached }
        var snapshot: Snapshot
        // Rowids only count up (AUTOINCREMENT): a row past the covered one is new, and one at
        // or below it changed only as the log says.
        if let cached, cached.sequence <= latest,
            let updated = try Self.updated(cached, latest: latest, highest: highest, connection: connection)
        {
            snapshot = updated
        } else {
            snapshot = Snapshot(rows: RowSet(base: try FilterCache.lowestRowid(connection)))
            var expiring = Expiries()
            try Self.read(into: &snapshot, "SELECT rowid, expires FROM items WHERE rowid <= ? ORDER BY rowid", [.integer(highest)],
                          connection: connection) { expiring.rowids.append($0); expiring.times.append($1) }
            snapshot.expiring = expiring
            snapshot.covered = highest
            snapshot.sequence = latest
        }
        let result = snapshot
        kept.withLock { kept in
            // A reader on an older snapshot of the file does not replace a newer one.
            if let newer = kept, newer.sequence > result.sequence { return }
            kept = result
        }
        return result
    }

    /// `cached` brought up to `latest` from the change log, or nil when the log cannot say
    /// which rows changed.
    private static func updated(_ cached: Snapshot, latest: Int64, highest: Int64, connection: SQLiteConnection) throws -> Snapshot? {
        let read = try ChangeLog.read(after: cached.sequence, limit: changesRead, connection)
        guard read.complete, read.latest == latest else { return nil }
        var touched = Set<Int64>()
        for change in read.changes {
            guard let rows = change.rows else { return nil }
            touched.formUnion(rows.filter { $0 <= cached.covered })
        }
        var snapshot = cached
        snapshot.forgetOrdinals()
        for rowid in touched { snapshot.rows.remove(rowid) }
        var added: [(rowid: Int64, expires: Double)] = []
        if !touched.isEmpty {
            let list = "[" + touched.map(String.init).joined(separator: ",") + "]"
            try Self.read(into: &snapshot, "SELECT i.rowid, i.expires FROM json_each(?) j JOIN items i ON i.rowid = j.value", [.text(list)],
                          connection: connection) { added.append(($0, $1)) }
        }
        if highest > cached.covered {
            snapshot.rows.reserve(through: highest)
            try Self.read(into: &snapshot, "SELECT rowid, expires FROM items WHERE rowid > ? AND rowid <= ? ORDER BY rowid",
                          [.integer(cached.covered), .integer(highest)], connection: connection) { added.append(($0, $1)) }
        }
        snapshot.expiring.replace(removing: touched, adding: added)
        snapshot.covered = max(cached.covered, highest)
        snapshot.sequence = latest
        return snapshot
    }

    /// Reads rows (rowid, expires) into the snapshot's set, giving `expiring` those that expire.
    private static func read(into snapshot: inout Snapshot, _ sql: String, _ arguments: [SQLiteValue], connection: SQLiteConnection,
                             expiring: (Int64, Double) -> Void) throws {
        let statement = try connection.statement(sql)
        statement.bind(arguments)
        while try statement.step() {
            let rowid = statement.int64(0)
            snapshot.rows.insert(rowid)
            if let expires = statement.optionalDouble(1) { expiring(rowid, expires) }
        }
        statement.reset()
    }

    /// The expiry (seconds since 1970) of each live row that has one, in two arrays by
    /// ascending rowid: 16 bytes a row, read in one walk beside a segment's rowids.
    struct Expiries: Sendable {
        var rowids: [Int64] = []
        var times: [Double] = []

        /// The expiry of `rowid`, nil when it has none.
        func time(of rowid: Int64) -> Double? {
            let index = rowids.firstIndex(atLeast: rowid)
            return index < rowids.count && rowids[index] == rowid ? times[index] : nil
        }

        /// Without the rows of `removed`, with `added` (in any order).
        mutating func replace(removing removed: Set<Int64>, adding added: [(rowid: Int64, expires: Double)]) {
            guard !removed.isEmpty || !added.isEmpty else { return }
            var kept = zip(rowids, times).filter { !removed.contains($0.0) }.map { (rowid: $0.0, expires: $0.1) } + added
            if zip(kept, kept.dropFirst()).contains(where: { $0.rowid >= $1.rowid }) { kept.sort { $0.rowid < $1.rowid } }
            rowids = kept.map(\.rowid)
            times = kept.map(\.expires)
        }
    }
}
