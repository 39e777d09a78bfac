import Items
import SQLite
import SearchModel

/// The tables of `index.sqlite`, created and migrated here and nowhere else.
///
/// - `items`: one row per item with its text columns (title, keywords, description) and
///   its length in tokens; `apps` holds the app list as JSON. An item is identified by
///   its owner and its identifier (``ItemKey``; the operator's owner is `''`): one index on
///   `(uid, owner)` finds an item by its key and by its identifier alone, and `items_owner`
///   an owner's items (files made before version 10 have `UNIQUE(owner, uid)` and an index
///   on `uid`, which serve the same lookups). Rowids are never reused
///   (AUTOINCREMENT), and replacing an item gives it a new rowid, so a posting in a
///   segment is live exactly while its row exists.
/// - `item_bodies`: the body text of each item (read for phrase checks and snippets),
///   compressed (``StoredText``); older rows and short bodies are text.
/// - `body_dictionaries`: the zstd dictionaries bodies are compressed with, trained on the
///   index's own bodies (``BodyDictionary``).
/// - `segments`: the inverted index (``SegmentStore``): immutable segments of postings
///   with block-max bounds, merged eight at a time, each segment's bytes in a file of the
///   `index.sqlite-segments` folder beside this file (``SegmentFile``);
///   `segment_files_dropped` lists the files of merged-away segments until they go.
/// - `meta`: the schema version, the index's identity, and the counts BM25 needs
///   (documents, tokens).
/// - `engagement`: impressions and clicks per item, reported with a key, and the anonymous
///   ones with the number of distinct networks they came from; removed with the item.
/// - `engagement_networks`: the last day each network (a salted hash) contributed an
///   anonymous impression and a click to an item, so each counts at most once a day.
/// - `batches`: the client state stored with the last committed batch of each indexer.
/// - `changes`: what each recent commit changed (``ChangeLog``), for result caches.
/// - `items_placed`: the places of the items that have one (a partial index), from which a
///   process builds its grid of places for searches near a place (``PlaceGrid``).
///
/// Version 1 kept the text in an FTS5 table and let FTS5 rank every match; version 2 has
/// its own postings so that a search does not score every match (BENCHMARKS.md, issue 17).
/// Version 3 added `items.record`, the app-database record of an ingested item (JSON).
/// Version 4 made an item's identity (owner, identifier) instead of the identifier alone,
/// engagement per item with its anonymous part counted by network, and added the items'
/// language and their words' stems (older items are analysed again, stems and all).
/// Version 5 added the change log; 6 counts each segment's deleted documents; 7 added
/// `items.rendered` (a crawled page read as a browser rendered it); 8 added the items'
/// places (`items.latitude`, `items.longitude`, and their index `items_placed`); 9 has the
/// items' `quality` by the rule that no longer takes a prose title's repeated "the" for
/// stuffing (``Ranking/quality(title:keywords:description:body:)``); 10 added
/// `body_dictionaries` (bodies compressed with a dictionary trained on the index's own), and
/// its new files index the identifier once (`UNIQUE(uid, owner)` and a small `items_owner`: 36 bytes an item less);
/// 11 added `segment_deletions` (each segment's removed rows, ``SegmentStore/deletionsSchema``).
/// Older files are migrated when they are opened (``IndexMigration``).
enum IndexSchema {
    static let version = 11

    static let statements = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS items(
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
            uid TEXT NOT NULL,
            domain_id TEXT,
            content_type TEXT,
            title TEXT NOT NULL,
            keywords TEXT NOT NULL DEFAULT '',
            description TEXT,
            thumbnail TEXT,
            web_url TEXT,
            domain TEXT,
            rating REAL,
            rating_scale REAL NOT NULL DEFAULT 5,
            rating_count INTEGER,
            price TEXT,
            currency TEXT,
            telephone TEXT,
            address TEXT,
            apps TEXT NOT NULL DEFAULT '[]',
            web_fallback INTEGER NOT NULL DEFAULT 1,
            source TEXT NOT NULL,
            owner TEXT NOT NULL DEFAULT '',
            expires REAL,
            updated REAL NOT NULL,
            quality REAL NOT NULL DEFAULT 1,
            length INTEGER NOT NULL DEFAULT 0,
            record TEXT,
            language TEXT,
            rendered INTEGER NOT NULL DEFAULT 0,
            latitude REAL,
            longitude REAL,
            UNIQUE(uid, owner)
        );
        CREATE INDEX IF NOT EXISTS items_owner ON items(owner);
        CREATE INDEX IF NOT EXISTS items_domain_id ON items(domain_id);
        CREATE INDEX IF NOT EXISTS items_expires ON items(expires) WHERE expires IS NOT NULL;
        CREATE TABLE IF NOT EXISTS item_bodies(rowid INTEGER PRIMARY KEY, body NOT NULL);
        CREATE TABLE IF NOT EXISTS engagement(
            owner TEXT NOT NULL, uid TEXT NOT NULL, impressions INTEGER NOT NULL DEFAULT 0, clicks INTEGER NOT NULL DEFAULT 0,
            anonymous_impressions INTEGER NOT NULL DEFAULT 0, anonymous_clicks INTEGER NOT NULL DEFAULT 0,
            anonymous_networks INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY(owner, uid)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS engagement_networks(
            owner TEXT NOT NULL, uid TEXT NOT NULL, network BLOB NOT NULL, impression_day INTEGER NOT NULL, click_day INTEGER,
            PRIMARY KEY(owner, uid, network)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS engagement_networks_day ON engagement_networks(impression_day);
        CREATE TABLE IF NOT EXISTS batches(name TEXT PRIMARY KEY, state BLOB, updated REAL NOT NULL);
        """ + places + BodyDictionary.schema + SegmentStore.schema + ChangeLog.schema

    /// The index of places (``IndexMigration/addPlaces(_:)`` adds it to older files), in rowid
    /// order: a new item's entry goes at its end, where one ordered by place went anywhere
    /// (a 10M build of placed items dirtied about a page of it per item in every commit and
    /// wrote 421 GB, 21 times what it kept), and the grid of places reads the rows written
    /// since it was made as one range (``PlaceGrid``). Files made before keep theirs, ordered
    /// by place, which answers the same statements.
    static let places = "CREATE INDEX IF NOT EXISTS items_placed ON items(rowid, latitude, longitude) WHERE latitude IS NOT NULL;"

    /// Creates the tables on a new file, migrates an older one, and checks the version.
    /// Returns the index's identity (a random id made with the file, so that caches of two
    /// files at one path over time never mix).
    static func prepare(_ connection: SQLiteConnection, tokenizer: SearchTokenizer.Session) throws -> String {
        let existing = try connection.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'meta'")
        try existing.step()
        let isNew = existing.int(0) == 0
        existing.reset()
        if isNew {
            try connection.transaction {
                try connection.execute(statements)
                try setVersion(connection)
                try IndexMigration.setSegmentFormat(connection)
            }
            return try identity(connection)
        }
        let versionRow = try connection.prepare("SELECT value FROM meta WHERE key = 'schema_version'")
        guard try versionRow.step(), let found = versionRow.string(0).flatMap({ Int($0) }) else {
            throw SearchIndexError.incompatible(path: connection.path)
        }
        // A statement left running would keep the migration from dropping tables.
        versionRow.reset()
        // Merges and rebuilds in the migrations below record segments gone in it.
        if found < 11 { try connection.execute(SegmentStore.deletionsSchema) }
        if found == 1 {
            try IndexMigration.fromVersion1(connection, tokenizer: tokenizer)
        } else if found == 2 || found == 3 {
            try IndexMigration.fromVersion3(connection, tokenizer: tokenizer, from: found)
        } else if (4...7).contains(found) {
            try IndexMigration.fromVersion4To7(connection, from: found)
        } else if !(8...version).contains(found) {
            throw SearchIndexError.incompatible(path: connection.path)
        }
        if found < 9 { try IndexMigration.fromVersion8(connection) }
        if found < 10 { try IndexMigration.fromVersion9(connection) }
        if found < 11 { try IndexMigration.fromVersion10(connection) }
        try IndexMigration.rebuildOutdatedSegments(connection, tokenizer: tokenizer)
        return try identity(connection)
    }

    /// Records the file's schema version (``version`` unless told).
    static func setVersion(_ connection: SQLiteConnection, _ value: Int = version) throws {
        try connection.statement("INSERT INTO meta(key, value) VALUES('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(String(value))])
    }

    private static func identity(_ connection: SQLiteConnection) throws -> String {
        let read = try connection.statement("SELECT value FROM meta WHERE key = 'index_id'")
        if try read.step(), let id = read.string(0) { return id }
        let id = (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
        try connection.statement("INSERT OR IGNORE INTO meta(key, value) VALUES('index_id', ?)").run([.text(id)])
        let again = try connection.statement("SELECT value FROM meta WHERE key = 'index_id'")
        return try again.step() ? again.string(0) ?? id : id
    }
}
