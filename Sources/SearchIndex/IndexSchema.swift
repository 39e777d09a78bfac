import SQLite

/// The tables of `index.sqlite`.
///
/// - `items`: one row per item with everything but the text; `apps` holds the app list
///   as JSON.
/// - `items_fts`: FTS5 over title, keywords, description and body text with the
///   `searchlight` tokenizer, storing the text itself, under the same rowid as `items`.
///   (An external-content table with sync triggers indexed at half the rate in the
///   index benchmark; FTS5 owning its text also makes deletes exact without having to
///   hand it the old values.) ``SearchIndex`` keeps the two in step in each transaction.
/// - `items_vocab`: the fts5vocab view of the index's terms, for typo tolerance.
/// - `engagement`: impressions and clicks per item.
/// - `batches`: the client state stored with the last committed batch of each indexer.
enum IndexSchema {
    static let version = 1

    /// FTS5 column weights for bm25, in column order: title, keywords, description, body.
    static let columnWeights = "10.0, 5.0, 3.0, 1.0"

    static let statements = """
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS items(
            rowid INTEGER PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            domain_id TEXT,
            content_type TEXT,
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
            owner TEXT,
            expires REAL,
            updated REAL NOT NULL,
            quality REAL NOT NULL DEFAULT 1
        );
        CREATE INDEX IF NOT EXISTS items_domain_id ON items(domain_id);
        CREATE INDEX IF NOT EXISTS items_expires ON items(expires) WHERE expires IS NOT NULL;
        CREATE INDEX IF NOT EXISTS items_owner ON items(owner) WHERE owner IS NOT NULL;
        CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(title, keywords, description, body, tokenize='searchlight');
        CREATE VIRTUAL TABLE IF NOT EXISTS items_vocab USING fts5vocab('items_fts', 'row');
        CREATE TABLE IF NOT EXISTS engagement(
            uid TEXT PRIMARY KEY, impressions INTEGER NOT NULL DEFAULT 0, clicks INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE IF NOT EXISTS batches(name TEXT PRIMARY KEY, state BLOB, updated REAL NOT NULL);
        """

    /// Creates the tables on a new file and checks the version of an existing one.
    static func prepare(_ connection: SQLiteConnection) throws {
        let existing = try connection.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'meta'")
        try existing.step()
        if existing.int(0) == 0 {
            try connection.transaction {
                try connection.execute(statements)
                try connection.execute("INSERT INTO items_fts(items_fts, rank) VALUES('rank', 'bm25(\(columnWeights))')")
                try connection.statement("INSERT INTO meta(key, value) VALUES('schema_version', ?)").run([.text(String(version))])
            }
            return
        }
        let versionRow = try connection.prepare("SELECT value FROM meta WHERE key = 'schema_version'")
        guard try versionRow.step(), let found = versionRow.string(0), Int(found) == version else {
            throw SearchIndexError.incompatible(path: connection.path)
        }
    }
}
