import FoundationEssentials
import Items
import SQLite

/// The `changes` table: one row per commit that changed what a search can return — the rows
/// it removed, replaced, re-dated or re-ranked by engagement, and a ``TermFilter`` of the
/// terms its new rows hold — written in the commit's own transaction, so a reader sees a
/// commit and its row together. Segment merges change nothing a search returns and write
/// none. Only the newest ``keptCommits`` are kept: a reader further behind than that learns
/// it missed some (``read(after:limit:_:)``) and treats every answer as touched.
enum ChangeLog {
    static let schema = """
        CREATE TABLE IF NOT EXISTS changes(sequence INTEGER PRIMARY KEY AUTOINCREMENT, inserted INTEGER NOT NULL,
            every_row INTEGER NOT NULL, rows BLOB, terms BLOB);
        """
    /// Commits kept (at most 32 KiB of rows and 32 KiB of filter each).
    static let keptCommits: Int64 = 512
    /// Rows one change lists at most; a commit touching more touches every answer.
    static let maximumRows = 4_096

    /// The rows a commit touched, collected as it goes.
    struct Rows {
        private(set) var rowids: [Int64] = []
        private(set) var overflowed = false

        var isEmpty: Bool { rowids.isEmpty && !overflowed }

        mutating func add(_ rowid: Int64) {
            guard !overflowed else { return }
            if rowids.count == ChangeLog.maximumRows {
                overflowed = true
                rowids = []
            } else {
                rowids.append(rowid)
            }
        }
    }

    /// Records one commit's change and forgets changes older than ``keptCommits``.
    /// - Parameter terms: the commit's new terms and their ids in byte order, in which each
    ///   distinct prefix is filed once.
    static func record(_ rows: Rows, inserted terms: (table: TermTable, sorted: [Int32])?, _ connection: SQLiteConnection) throws {
        var filter: TermFilter?
        if let (table, sorted) = terms, table.count > 0 {
            filter = TermFilter(entries: table.count + table.count / 2)
            var previous: Int32?
            for id in sorted {
                table.withBytes(id) { term in
                    var shared = 0
                    if let previous {
                        table.withBytes(previous) { before in
                            let most = min(TermFilter.prefixLength, before.count, term.count)
                            while shared < most, before[shared] == term[shared] { shared += 1 }
                        }
                    }
                    filter?.insert(term: term, prefixesFiled: shared)
                }
                previous = id
            }
        }
        let inserted = (terms?.table.count ?? 0) > 0
        var rowBytes = ByteWriter(capacity: rows.rowids.count * 8)
        for rowid in rows.rowids { rowBytes.u64(UInt64(bitPattern: rowid)) }
        let statement = try connection.statement("INSERT INTO changes(inserted, every_row, rows, terms) VALUES(?, ?, ?, ?) RETURNING sequence")
        statement.bind([.integer(inserted ? 1 : 0), .integer(rows.overflowed ? 1 : 0), .blob(rowBytes.bytes), filter.map { .blob($0.bytes) } ?? .null])
        guard try statement.step() else { throw SQLiteError(code: 1, message: "insert returned no row", sql: statement.sql) }
        let sequence = statement.int64(0)
        while try statement.step() {}
        try connection.statement("DELETE FROM changes WHERE sequence <= ?").run([.integer(sequence - keptCommits)])
    }

    /// The newest change's sequence number; 0 before the first.
    static func latest(_ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.statement("SELECT coalesce(max(sequence), 0) FROM changes")
        try statement.step()
        return statement.int64(0)
    }

    /// The changes after `sequence`, oldest first, at most `limit`; `complete` is false when
    /// the log no longer holds all of them (trimmed, more than `limit`, or a new file whose
    /// numbers started again).
    static func read(after sequence: Int64, limit: Int, _ connection: SQLiteConnection) throws -> IndexChanges {
        let latest = try latest(connection)
        let statement = try connection.statement(
            "SELECT sequence, inserted, every_row, rows, terms FROM changes WHERE sequence > ? ORDER BY sequence LIMIT ?")
        statement.bind([.integer(sequence), .integer(Int64(limit))])
        var changes: [IndexChange] = []
        while try statement.step() {
            let rows = statement.int(2) != 0 ? nil : statement.withBlob(3) { bytes -> Set<Int64>? in
                guard bytes.count % 8 == 0 else { return nil }
                var reader = ByteReader(bytes)
                return Set((0..<bytes.count / 8).map { _ in Int64(bitPattern: reader.u64()) })
            }
            let inserted = statement.int(1) != 0
            changes.append(IndexChange(sequence: statement.int64(0), rows: rows, terms: statement.blob(4).flatMap(TermFilter.init(bytes:)),
                                       insertedRows: inserted))
        }
        let complete = latest >= sequence && (changes.first?.sequence ?? sequence + 1) == sequence + 1 && (changes.last?.sequence ?? sequence) == latest
        return IndexChanges(changes: changes, complete: complete, latest: latest)
    }
}

/// The changes a reader has not seen yet (``SearchIndex/changes(after:limit:)``).
public struct IndexChanges: Sendable {
    /// Oldest first.
    public var changes: [IndexChange]
    /// False when some changes after the asked-for number are not in ``changes``: a cache
    /// must then treat every answer as touched.
    public var complete: Bool
    /// The newest change's sequence number.
    public var latest: Int64
}
