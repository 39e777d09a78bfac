import Glibc
import Items
import SQLite

/// The segments of an index: a row each in `index.sqlite`'s `segments` table (``SegmentInfo``,
/// owned with the rest of its schema by ``IndexSchema``), the bytes in a file each
/// (``SegmentFile``). A segment's file is written and synced inside the transaction that adds
/// its row, before that commits, so a committed row always has its file and readers never
/// see half a segment; a file with no row (a transaction that did not commit) is removed by
/// the next writer. A segment merged away loses its row at once and its file a minute later
/// (`segment_files_dropped`): a reader in another process that listed the segments just
/// before may still map it.
enum SegmentStore {
    static let schema = """
        CREATE TABLE IF NOT EXISTS segments(
            id INTEGER PRIMARY KEY AUTOINCREMENT, level INTEGER NOT NULL, documents INTEGER NOT NULL, terms INTEGER NOT NULL,
            documents_offset INTEGER NOT NULL, dictionary_offset INTEGER NOT NULL, length INTEGER NOT NULL,
            average_length REAL NOT NULL, min_rowid INTEGER NOT NULL, max_rowid INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS segment_files_dropped(id INTEGER PRIMARY KEY, dropped REAL NOT NULL);
        """ + deletionsSchema

    /// The rows of each segment whose items were removed since it was written, as Lucene
    /// keeps a segment's deleted documents beside it: what a count over every match leaves
    /// out (``LiveRows``) without reading `items`. Kept with `segments.deleted` (their count)
    /// and gone with the segment.
    static let deletionsSchema = """
        CREATE TABLE IF NOT EXISTS segment_deletions(segment INTEGER NOT NULL, rowid INTEGER NOT NULL, PRIMARY KEY(segment, rowid))
            WITHOUT ROWID;
        """

    /// Seconds a merged-away segment's file stays for readers that listed it.
    static let droppedFileSeconds = 60.0

    /// Level 0 holds segments of fewer than 128 documents, each level up eight times more
    /// (128–1,023, 1,024–8,191…): eight segments of a level merged hold at least the least
    /// of the next, so a merge's output is not merged again at its inputs' level.
    static func level(documents: Int) -> Int {
        var level = 0
        var size = 128
        while documents >= size, level < 12 {
            level += 1
            size *= 8
        }
        return level
    }

    static func list(_ connection: SQLiteConnection) throws -> [SegmentInfo] {
        let statement = try connection.statement("""
            SELECT id, level, documents, terms, documents_offset, dictionary_offset, length, average_length, min_rowid, max_rowid, deleted
            FROM segments ORDER BY documents DESC, id
            """)
        var segments: [SegmentInfo] = []
        while try statement.step() {
            segments.append(SegmentInfo(
                id: Int64(statement.int(0)), level: statement.int(1), documents: statement.int(2), terms: statement.int(3),
                documentsOffset: statement.int(4), dictionaryOffset: statement.int(5), length: statement.int(6),
                averageLength: statement.double(7), minimumRowid: Int64(statement.int(8)), maximumRowid: Int64(statement.int(9)),
                deleted: statement.int(10)))
        }
        return segments
    }

    /// Writes a segment: `write` receives the function that stores each piece of its bytes,
    /// in order, and returns the layout's offsets; `holdsFilterTerms` when every document's
    /// filter terms are among them (``FilterTerms``).
    @discardableResult
    static func create(
        _ connection: SQLiteConnection, documents: Int, averageLength: Double, rowids: ClosedRange<Int64>, holdsFilterTerms: Bool = false,
        write: (_ emit: @escaping (Int, [UInt8]) throws -> Void) throws -> (documentsOffset: Int, dictionaryOffset: Int, length: Int, terms: Int)
    ) throws -> Int64 {
        try connection.statement("""
            INSERT INTO segments(level, documents, terms, documents_offset, dictionary_offset, length, average_length, min_rowid, max_rowid)
            VALUES(?, ?, 0, 0, 0, 0, ?, ?, ?)
            """).run([.integer(Int64(level(documents: documents))), .integer(Int64(documents)), .real(averageLength),
                      .integer(rowids.lowerBound), .integer(rowids.upperBound)])
        let id = connection.lastInsertRowID
        // This connection holds the write lock from the insert on: no other writer is
        // between writing a file and committing its row, so a file without a row is left over.
        try removeUnused(connection)
        let file = try SegmentFile.Writer(indexPath: connection.path, segment: id)
        let layout = try write { _, bytes in try file.append(bytes) }
        try file.finish(length: layout.length, holdsFilterTerms: holdsFilterTerms)
        try connection.statement("UPDATE segments SET terms = ?, documents_offset = ?, dictionary_offset = ?, length = ? WHERE id = ?")
            .run([.integer(Int64(layout.terms)), .integer(Int64(layout.documentsOffset)), .integer(Int64(layout.dictionaryOffset)),
                  .integer(Int64(layout.length)), .integer(id)])
        return id
    }

    /// Removes the files of segments merged away over ``droppedFileSeconds`` ago, and files
    /// no segment has (left by a transaction that did not commit, or half-written by a writer
    /// that stopped), in the writer's transaction.
    static func removeUnused(_ connection: SQLiteConnection, now: Double = Double(time(nil))) throws {
        let expired = try connection.statement("SELECT id FROM segment_files_dropped WHERE dropped <= ?")
        expired.bind(1, now - droppedFileSeconds)
        var gone: [Int64] = []
        while try expired.step() { gone.append(expired.int64(0)) }
        expired.reset()
        for id in gone {
            SegmentFile.remove(forIndex: connection.path, segment: id)
            try connection.statement("DELETE FROM segment_files_dropped WHERE id = ?").run([.integer(id)])
        }
        // A half-written file is a writer's that stopped: none writes while this one holds the lock.
        for id in SegmentFile.stored(forIndex: connection.path, unfinished: true) {
            SegmentFile.remove(forIndex: connection.path, segment: id, unfinished: true)
        }
        let stored = SegmentFile.stored(forIndex: connection.path)
        guard !stored.isEmpty else { return }
        var known = Set<Int64>()
        let rows = try connection.statement("SELECT id FROM segments UNION ALL SELECT id FROM segment_files_dropped")
        while try rows.step() { known.insert(rows.int64(0)) }
        rows.reset()
        for id in stored where !known.contains(id) { SegmentFile.remove(forIndex: connection.path, segment: id) }
    }

    /// Records the removal of items `rowids` against the segments that hold their postings
    /// (found by rowid range, and where ranges of merged segments overlap, by the segment's
    /// own rowids): each in ``deletionsSchema``, and counted, so that a segment mostly of
    /// deleted documents is merged away (``SegmentMerger/pick(_:)``).
    static func recordDeletions(_ rowids: [Int64], _ connection: SQLiteConnection) throws {
        guard !rowids.isEmpty else { return }
        let segments = try list(connection)
        var counts: [Int64: Int] = [:]
        var held: [Int64: [Int64]] = [:]
        let record = try connection.statement("INSERT OR IGNORE INTO segment_deletions(segment, rowid) VALUES(?, ?)")
        for rowid in rowids {
            let around = segments.filter { $0.minimumRowid <= rowid && rowid <= $0.maximumRowid }
            if around.count == 1 {
                counts[around[0].id, default: 0] += 1
                try record.run([.integer(around[0].id), .integer(rowid)])
                continue
            }
            for segment in around {
                if held[segment.id] == nil { held[segment.id] = try rowidsOf(segment, connection) }
                let list = held[segment.id]!
                var low = 0
                var high = list.count
                while low < high {
                    let middle = (low + high) / 2
                    if list[middle] < rowid { low = middle + 1 } else { high = middle }
                }
                if low < list.count, list[low] == rowid {
                    counts[segment.id, default: 0] += 1
                    try record.run([.integer(segment.id), .integer(rowid)])
                    break
                }
            }
        }
        let update = try connection.statement("UPDATE segments SET deleted = min(documents, deleted + ?) WHERE id = ?")
        for (id, count) in counts { try update.run([.integer(Int64(count)), .integer(id)]) }
    }

    /// The rows of `segment` recorded removed (``recordDeletions(_:_:)``), ascending.
    static func deletions(of segment: Int64, _ connection: SQLiteConnection) throws -> [Int64] {
        let statement = try connection.statement("SELECT rowid FROM segment_deletions WHERE segment = ? ORDER BY rowid")
        defer { statement.reset() }
        statement.bind(1, segment)
        var rowids: [Int64] = []
        while try statement.step() { rowids.append(statement.int64(0)) }
        return rowids
    }

    /// Records the removals of the segments with deletions counted (those of a file made
    /// before ``deletionsSchema``): each such segment's rowids that `items` no longer holds.
    /// The rowids `items` holds are read once, as a bit each, from the narrowest index over
    /// every row, which SQLite picks when no order is asked for (not the table, whose scan
    /// reads every row's columns).
    static func recordPastDeletions(_ connection: SQLiteConnection, span: Int64 = pastDeletionsSpan) throws {
        let counted = try list(connection).filter { $0.deleted > 0 }
        guard !counted.isEmpty else { return }
        let lowest = counted.map(\.minimumRowid).min() ?? 0
        let highest = counted.map(\.maximumRowid).max() ?? 0
        let record = try connection.statement("INSERT OR IGNORE INTO segment_deletions(segment, rowid) VALUES(?, ?)")
        guard lowest >= 0, highest >= lowest, highest - lowest < span else {
            // Rowids spread wider than a bit each can hold: each looked up in `items`.
            let present = try connection.statement("SELECT 1 FROM items WHERE rowid = ?")
            for segment in counted {
                for rowid in try rowidsOf(segment, connection) {
                    present.reset()
                    present.bind(1, rowid)
                    if try !present.step() { try record.run([.integer(segment.id), .integer(rowid)]) }
                }
            }
            present.reset()
            return
        }
        var held = [UInt64](repeating: 0, count: Int((highest - lowest) >> 6) + 1)
        let rows = try connection.statement("SELECT rowid FROM items")
        while try rows.step() {
            let rowid = rows.int64(0)
            guard rowid >= lowest, rowid <= highest else { continue }
            held[Int((rowid - lowest) >> 6)] |= UInt64(1) << UInt64((rowid - lowest) & 63)
        }
        rows.reset()
        for segment in counted {
            for rowid in try rowidsOf(segment, connection) where rowid >= lowest && rowid <= highest {
                guard held[Int((rowid - lowest) >> 6)] & (UInt64(1) << UInt64((rowid - lowest) & 63)) == 0 else { continue }
                try record.run([.integer(segment.id), .integer(rowid)])
            }
        }
    }

    /// The widest span of rowids ``recordPastDeletions(_:span:)`` holds a bit each for (64 MB).
    static let pastDeletionsSpan: Int64 = 1 << 29

    /// A segment's rowids, from the head of its documents (copied while the reader, whose
    /// mapping they are read from, is alive).
    private static func rowidsOf(_ segment: SegmentInfo, _ connection: SQLiteConnection) throws -> [Int64] {
        let reader = try SegmentReader(info: segment, connection: connection, access: .sequential)
        return withExtendedLifetime(reader) { Array(reader.rowids) }
    }

    /// Deletes the segments' rows; their files go a minute later (``removeUnused(_:now:)``).
    static func delete(_ connection: SQLiteConnection, segments: [Int64], now: Double = Double(time(nil))) throws {
        for id in segments {
            try connection.statement("DELETE FROM segments WHERE id = ?").run([.integer(id)])
            try connection.statement("DELETE FROM segment_deletions WHERE segment = ?").run([.integer(id)])
            try connection.statement("INSERT OR REPLACE INTO segment_files_dropped(id, dropped) VALUES(?, ?)").run([.integer(id), .real(now)])
        }
    }
}
