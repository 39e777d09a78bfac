import Glibc
import Items
import SQLite

/// Brings an index of an older schema version to ``IndexSchema/version`` in place, in one
/// transaction: a crash half-way leaves the old version, which the next open migrates.
enum IndexMigration {
    /// Version 1 kept titles, keywords, descriptions and bodies in the FTS5 table
    /// `items_fts` and no lengths or postings: the items move to the new table under the
    /// same rowids, their text is analysed into segments, and the FTS5 tables go.
    static func fromVersion1(_ connection: SQLiteConnection, tokenizer: SearchTokenizer.Session) throws {
        try connection.transaction {
            try connection.execute("ALTER TABLE items RENAME TO items_v1")
            try connection.execute("ALTER TABLE engagement RENAME TO engagement_v3")
            for index in ["items_domain_id", "items_expires", "items_owner"] { try connection.execute("DROP INDEX IF EXISTS \(index)") }
            try connection.execute(IndexSchema.statements)
            let rows = try connection.prepare("""
                SELECT i.rowid, i.uid, i.domain_id, i.content_type, f.title, f.keywords, f.description, i.thumbnail, i.web_url, i.domain,
                    i.rating, i.rating_scale, i.rating_count, i.price, i.currency, i.telephone, i.address, i.apps, i.web_fallback,
                    i.source, coalesce(i.owner, ''), i.expires, i.updated, i.quality, f.body
                FROM items_v1 i JOIN items_fts f ON f.rowid = i.rowid ORDER BY i.rowid
                """)
            let insert = try connection.prepare("""
                INSERT INTO items(rowid, uid, domain_id, content_type, title, keywords, description, thumbnail, web_url, domain, rating,
                    rating_scale, rating_count, price, currency, telephone, address, apps, web_fallback, source, owner, expires, updated,
                    quality, length)
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)
                """)
            let body = try connection.prepare("INSERT INTO item_bodies(rowid, body) VALUES(?, ?)")
            let compressor = StoredText.Compressor()
            var builder = SegmentBuilder()
            var documents = 0
            var tokens = 0
            var batches: [SegmentBuilder] = []
            while try rows.step() {
                let rowid = Int64(rows.int(0))
                let text = [rows.string(4) ?? "", rows.string(5) ?? "", rows.string(6) ?? "", rows.string(24) ?? ""]
                let length = builder.analyze(columns: text, tokenizer: tokenizer, language: nil)
                builder.assign(rowid: rowid, key: ItemKey(owner: ItemKey.owner(stored: rows.string(20)), identifier: rows.string(1) ?? "").orderKey)
                var values: [SQLiteValue] = [.integer(rowid)]
                for column in 1...23 { values.append(value(rows, Int32(column))) }
                values.append(.integer(Int64(length)))
                insert.reset()
                insert.bind(values)
                try insert.step()
                if !text[3].isEmpty { try body.run([.integer(rowid), compressor.value(text[3])]) }
                documents += 1
                tokens += length
                if builder.documents >= 16_384 {
                    batches.append(builder)
                    builder = SegmentBuilder()
                }
            }
            if !builder.isEmpty { batches.append(builder) }
            // A statement still reading items_v1 would stop the table from being dropped.
            rows.reset()
            insert.reset()
            body.reset()
            try connection.execute("DELETE FROM meta WHERE key IN ('documents', 'tokens')")
            try IndexStatistics.add(documents: documents, tokens: tokens, connection)
            let average = BM25.averageLength(documents: documents, tokens: tokens)
            for batch in batches {
                try SegmentStore.create(connection, documents: batch.documents, averageLength: average,
                                        rowids: batch.rowids.first!...batch.rowids.last!) { emit in try batch.write(averageLength: average, emit: emit) }
            }
            try connection.execute("DROP TABLE items_v1; DROP TABLE IF EXISTS items_vocab; DROP TABLE IF EXISTS items_fts;")
            try moveEngagement(connection)
            try IndexSchema.setVersion(connection, 8)
            try setSegmentFormat(connection)
        }
        try IndexWriter.mergeSegments(connection)
    }

    /// Versions 4 to 7 lack what each later version added, in one transaction from the
    /// file's version on: 4 the change log (empty: a cache reading it starts from its first
    /// change); 5 the segments' deleted counts (at 0: the rebuild that follows for older segment
    /// layouts writes them afresh anyway); 6 `items.rendered` (0: no item was rendered then);
    /// 7 the items' places and their index (empty: no item had a place then).
    static func fromVersion4To7(_ connection: SQLiteConnection, from version: Int) throws {
        try connection.transaction {
            if version <= 4 { try connection.execute(ChangeLog.schema) }
            if version <= 5 { try addDeletedCount(connection) }
            if version <= 6 { try addRenderedColumn(connection) }
            try addPlaces(connection)
            try IndexSchema.setVersion(connection, 8)
        }
    }

    /// Version 8 halved the quality of an item whose title held one word four times, which
    /// a long title of plain prose does with "the" or "and": every halved item's quality is
    /// worked out again from its text (few items have one), in one transaction.
    static func fromVersion8(_ connection: SQLiteConnection) throws {
        try connection.transaction {
            let rows = try connection.prepare("""
                SELECT i.rowid, i.title, i.keywords, i.description, b.body, i.quality
                FROM items i LEFT JOIN item_bodies b ON b.rowid = i.rowid WHERE i.quality < 1
                """)
            var changed: [(rowid: Int64, quality: Double)] = []
            let dictionaries = BodyDictionaries()
            while try rows.step() {
                let quality = Ranking.quality(title: rows.string(1) ?? "", keywords: StoredKeywords.decode(rows.string(2) ?? ""),
                                              description: rows.string(3) ?? "",
                                              body: StoredText.text(rows, 4, dictionaries: dictionaries, connection: connection))
                if quality != rows.double(5) { changed.append((rows.int64(0), quality)) }
            }
            rows.reset()
            let update = try connection.prepare("UPDATE items SET quality = ?1 WHERE rowid = ?2")
            for row in changed { try update.run([.real(row.quality), .integer(row.rowid)]) }
            try IndexSchema.setVersion(connection, 9)
        }
    }

    /// Version 10 compresses bodies with a dictionary once the index has one: the table of
    /// dictionaries is added; bodies already stored keep their format.
    static func fromVersion9(_ connection: SQLiteConnection) throws {
        try connection.transaction {
            try connection.execute(BodyDictionary.schema)
            try IndexSchema.setVersion(connection, 10)
        }
    }

    /// Version 10 counted each segment's removed rows without listing them: the segments
    /// with a count get their list from `items` (the segment's rowids it no longer holds).
    static func fromVersion10(_ connection: SQLiteConnection) throws {
        try connection.transaction {
            try connection.execute(SegmentStore.deletionsSchema)
            try SegmentStore.recordPastDeletions(connection)
            try IndexSchema.setVersion(connection, 11)
        }
    }

    static func addPlaces(_ connection: SQLiteConnection) throws {
        if try !hasColumn(connection, "items", "latitude") {
            try connection.execute("ALTER TABLE items ADD COLUMN latitude REAL; ALTER TABLE items ADD COLUMN longitude REAL;")
        }
        try connection.execute(IndexSchema.places)
    }

    static func addRenderedColumn(_ connection: SQLiteConnection) throws {
        if try !hasColumn(connection, "items", "rendered") { try connection.execute("ALTER TABLE items ADD COLUMN rendered INTEGER NOT NULL DEFAULT 0") }
    }

    /// Whether `table` has `column` (an older file's table may lack one added since).
    private static func hasColumn(_ connection: SQLiteConnection, _ table: String, _ column: String) throws -> Bool {
        let columns = try connection.statement("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?")
        defer { columns.reset() }
        columns.bind(1, table)
        columns.bind(2, column)
        try columns.step()
        return columns.int(0) > 0
    }

    /// Adds `segments.deleted` where an older `segments` table lacks it (tables kept by the
    /// migrations of versions 1 to 4 too).
    static func addDeletedCount(_ connection: SQLiteConnection) throws {
        if try !hasColumn(connection, "segments", "deleted") { try connection.execute("ALTER TABLE segments ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0") }
    }

    /// Version 2 had no `items.record`: added, empty, as no item was ingested then.
    static func fromVersion2(_ connection: SQLiteConnection) throws {
        try connection.execute("ALTER TABLE items ADD COLUMN record TEXT")
    }

    /// Version 3 (and 2, with ``fromVersion2(_:)`` first, in the same transaction) knew an
    /// item by its identifier alone: the table is rebuilt with (owner, identifier) unique,
    /// the operator's owner stored as `''`, under the same rowids and with the rowid
    /// sequence carried over (postings stay valid, and a rowid is still never reused).
    /// Engagement moves to the owner of the item it names; counts for items that no
    /// longer exist go.
    static func fromVersion3(_ connection: SQLiteConnection, tokenizer: SearchTokenizer.Session, from version: Int = 3) throws {
        try connection.transaction {
            if version == 2 { try fromVersion2(connection) }
            let sequence = try connection.statement("SELECT seq FROM sqlite_sequence WHERE name = 'items'")
            let next: Int64? = try sequence.step() ? Int64(sequence.int(0)) : nil
            sequence.reset()
            try addDeletedCount(connection)
            try connection.execute("ALTER TABLE items RENAME TO items_v3")
            try connection.execute("ALTER TABLE engagement RENAME TO engagement_v3")
            for index in ["items_domain_id", "items_expires", "items_owner"] { try connection.execute("DROP INDEX IF EXISTS \(index)") }
            try connection.execute(IndexSchema.statements)
            try connection.execute("""
                INSERT INTO items(rowid, uid, domain_id, content_type, title, keywords, description, thumbnail, web_url, domain, rating,
                    rating_scale, rating_count, price, currency, telephone, address, apps, web_fallback, source, owner, expires, updated,
                    quality, length, record)
                SELECT rowid, uid, domain_id, content_type, title, keywords, description, thumbnail, web_url, domain, rating,
                    rating_scale, rating_count, price, currency, telephone, address, apps, web_fallback, source, coalesce(owner, ''), expires,
                    updated, quality, length, record
                FROM items_v3 ORDER BY rowid
                """)
            try connection.execute("DROP TABLE items_v3")
            if let next {
                try connection.statement("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'items'").run([.integer(next)])
            }
            try moveEngagement(connection)
            try rebuildPostings(connection, tokenizer: tokenizer)
            try IndexSchema.setVersion(connection, 8)
            try setSegmentFormat(connection)
        }
        try IndexWriter.mergeSegments(connection)
    }

    /// Segments written in an older ``SegmentLayout/version`` rebuilt from the items, in one
    /// transaction (a crash half-way leaves the old segments, rebuilt at the next open); a
    /// line on standard error says so when there are items to read again, as a large index
    /// takes minutes.
    static func rebuildOutdatedSegments(_ connection: SQLiteConnection, tokenizer: SearchTokenizer.Session) throws {
        let format = try connection.statement("SELECT value FROM meta WHERE key = 'segment_format'")
        let found = try format.step() ? Int(format.string(0) ?? "") ?? 0 : 1
        format.reset()
        guard found < SegmentLayout.version else { return }
        try connection.transaction {
            let items = try connection.statement("SELECT count(*) FROM items")
            try items.step()
            let count = items.int(0)
            items.reset()
            if count > 0 {
                var line = "searchlight: \(connection.path): rebuilding the postings of \(count) items for segment format \(SegmentLayout.version) (once)\n"
                _ = line.withUTF8 { write(STDERR_FILENO, $0.baseAddress, $0.count) }
                try rebuildPostings(connection, tokenizer: tokenizer)
            } else {
                try SegmentStore.delete(connection, segments: try SegmentStore.list(connection).map(\.id))
            }
            // Format 5 moved the segments' bytes out of the file.
            try connection.execute("DROP TABLE IF EXISTS segment_chunks")
            try setSegmentFormat(connection)
        }
        try IndexWriter.mergeSegments(connection)
        // A file made before free pages were given back cannot start now without being
        // written anew once: done here, as the rebuild has read every item anyway.
        let vacuum = try connection.statement("PRAGMA auto_vacuum")
        let mode = try vacuum.step() ? vacuum.int(0) : 2
        vacuum.reset()
        // Best effort: another connection's transaction keeps it for a later rebuild to do.
        if mode == 0 { try? connection.execute("PRAGMA auto_vacuum = INCREMENTAL; VACUUM;") }
    }

    static func setSegmentFormat(_ connection: SQLiteConnection) throws {
        try connection.statement("INSERT INTO meta(key, value) VALUES('segment_format', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(String(SegmentLayout.version))])
    }

    /// Every item analysed again into new segments (version 4 indexes stems beside words),
    /// under the same rowids; the lengths and counts BM25 needs are recounted, and bodies
    /// still stored as text are compressed (``StoredText``).
    private static func rebuildPostings(_ connection: SQLiteConnection, tokenizer: SearchTokenizer.Session) throws {
        try SegmentStore.delete(connection, segments: try SegmentStore.list(connection).map(\.id))
        let rows = try connection.prepare("""
            SELECT i.rowid, i.title, i.keywords, coalesce(i.description, ''), b.body, i.language, i.owner, i.uid
            FROM items i LEFT JOIN item_bodies b ON b.rowid = i.rowid ORDER BY i.rowid
            """)
        let length = try connection.prepare("UPDATE items SET length = ? WHERE rowid = ?")
        let compress = try connection.prepare("UPDATE item_bodies SET body = ? WHERE rowid = ?")
        let compressor = StoredText.Compressor()
        let dictionaries = BodyDictionaries()
        var builders: [SegmentBuilder] = []
        var builder = SegmentBuilder()
        var documents = 0
        var tokens = 0
        while try rows.step() {
            let rowid = Int64(rows.int(0))
            let body = StoredText.text(rows, 4, dictionaries: dictionaries, connection: connection)
            if !rows.isNull(4), !rows.isBlob(4), case .blob(let packed) = compressor.value(body) {
                compress.reset()
                compress.bind([.blob(packed), .integer(rowid)])
                try compress.step()
            }
            let columns = [rows.string(1) ?? "", StoredKeywords.analysed(rows.string(2) ?? ""), rows.string(3) ?? "", body]
            let count = builder.analyze(columns: columns, tokenizer: tokenizer, language: rows.string(5))
            builder.assign(rowid: rowid, key: ItemKey(owner: ItemKey.owner(stored: rows.string(6)), identifier: rows.string(7) ?? "").orderKey)
            length.reset()
            length.bind([.integer(Int64(count)), .integer(rowid)])
            try length.step()
            documents += 1
            tokens += count
            if builder.documents >= 16_384 {
                builders.append(builder)
                builder = SegmentBuilder()
            }
        }
        rows.reset()
        length.reset()
        compress.reset()
        if !builder.isEmpty { builders.append(builder) }
        try connection.execute("DELETE FROM meta WHERE key IN ('documents', 'tokens')")
        try IndexStatistics.add(documents: documents, tokens: tokens, connection)
        let average = BM25.averageLength(documents: documents, tokens: tokens)
        for batch in builders {
            try SegmentStore.create(connection, documents: batch.documents, averageLength: average,
                                    rowids: batch.rowids.first!...batch.rowids.last!) { emit in try batch.write(averageLength: average, emit: emit) }
        }
    }

    /// Engagement of an older version (`engagement_v3`, by identifier) under the owner of
    /// the item it names; then the old table goes.
    private static func moveEngagement(_ connection: SQLiteConnection) throws {
        try connection.execute("""
            INSERT INTO engagement(owner, uid, impressions, clicks)
            SELECT i.owner, e.uid, e.impressions, e.clicks FROM engagement_v3 e JOIN items i ON i.uid = e.uid;
            DROP TABLE engagement_v3;
            """)
    }

    private static func value(_ statement: SQLiteStatement, _ column: Int32) -> SQLiteValue {
        if statement.isNull(column) { return .null }
        switch column {
        case 10, 11, 21, 22, 23: return .real(statement.double(column))
        case 12, 18: return .integer(Int64(statement.int(column)))
        default: return .text(statement.string(column) ?? "")
        }
    }
}
