import Foundation
import SQLite
import StoreSeams
import WebURL

/// The crawl frontier in `frontier.sqlite`: every URL the crawl knows, with its state,
/// depth, where it was found, when it is due, and its fetch history; per-host state
/// (robots.txt, association files, back-off); and the digests of bodies already seen.
///
/// Memory stays bounded however many URLs are known: the crawl reads due URLs a host at
/// a time in small batches, and marks them claimed so a run never reads one twice; a new
/// run first releases the claims a killed run left behind. Writes are batched by the
/// crawl into one transaction per flush.
///
/// Not thread-safe: the crawl coordinator owns it.
final class Frontier {
    let connection: SQLiteConnection
    /// False for a frontier made before each URL kept its verdict's reason, opened to read.
    let hasReasons: Bool
    /// False for a frontier made before a verdict kept the rule behind it, opened to read.
    let hasDetails: Bool

    /// Opens an existing frontier to read, as `status` and `validate` do while a run may be
    /// writing: read-only, no schema created or changed, the journal mode left as it is.
    init(readingAt path: String) throws {
        connection = try SQLiteConnection(path: path, mode: .readOnly)
        hasReasons = try Self.hasColumn("reason", connection)
        hasDetails = try Self.hasColumn("detail", connection)
    }

    private static func hasColumn(_ name: String, _ connection: SQLiteConnection) throws -> Bool {
        let columns = try connection.statement("SELECT count(*) FROM pragma_table_info('urls') WHERE name = ?")
        columns.bind(1, name)
        try columns.step()
        defer { columns.reset() }
        return columns.int(0) > 0
    }

    init(path: String) throws {
        connection = try SQLiteConnection(path: path)
        try connection.execute("""
            PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
            CREATE TABLE IF NOT EXISTS urls(
                id INTEGER PRIMARY KEY,
                url TEXT NOT NULL UNIQUE,
                origin TEXT NOT NULL,
                depth INTEGER NOT NULL,
                found_on TEXT,
                from_sitemap INTEGER NOT NULL DEFAULT 0,
                priority REAL NOT NULL DEFAULT 0.5,
                redirects INTEGER NOT NULL DEFAULT 0,
                fetched INTEGER NOT NULL DEFAULT 0,
                claimed INTEGER NOT NULL DEFAULT 0,
                state TEXT NOT NULL DEFAULT 'new',
                due REAL NOT NULL,
                fetched_at REAL,
                status INTEGER,
                etag TEXT,
                last_modified TEXT,
                content_hash TEXT,
                item_id TEXT,
                failures INTEGER NOT NULL DEFAULT 0,
                first_failure REAL,
                interval REAL,
                changefreq TEXT,
                sitemap_lastmod REAL,
                changes INTEGER NOT NULL DEFAULT 0,
                redirected_to TEXT
            );
            CREATE INDEX IF NOT EXISTS urls_new ON urls(origin, claimed, fetched, from_sitemap DESC, depth, id);
            CREATE INDEX IF NOT EXISTS urls_revisit ON urls(origin, claimed, fetched, due);
            CREATE TABLE IF NOT EXISTS hosts(
                origin TEXT PRIMARY KEY,
                robots_status INTEGER, robots_body BLOB, robots_fetched REAL,
                association_fetched REAL, aasa BLOB, assetlinks BLOB,
                backoff_until REAL, sitemaps_fetched REAL
            );
            CREATE TABLE IF NOT EXISTS contents(hash TEXT PRIMARY KEY, url TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS fingerprints(url TEXT PRIMARY KEY, origin TEXT NOT NULL, simhash INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS fingerprints_origin ON fingerprints(origin);
            CREATE TABLE IF NOT EXISTS seeds(url TEXT PRIMARY KEY, added REAL NOT NULL);
            """)
        // Frontiers made before each URL kept its verdict's reason.
        if try !Self.hasColumn("reason", connection) { try connection.execute("ALTER TABLE urls ADD COLUMN reason TEXT") }
        try connection.execute("CREATE INDEX IF NOT EXISTS urls_reason ON urls(reason) WHERE reason IS NOT NULL")
        // Frontiers made before a verdict kept the rule behind it.
        if try !Self.hasColumn("detail", connection) { try connection.execute("ALTER TABLE urls ADD COLUMN detail TEXT") }
        // Frontiers made before notified URLs went first.
        if try !Self.hasColumn("noticed", connection) { try connection.execute("ALTER TABLE urls ADD COLUMN noticed REAL") }
        try connection.execute("""
            CREATE INDEX IF NOT EXISTS urls_noticed ON urls(origin, claimed, noticed) WHERE noticed IS NOT NULL;
            CREATE TABLE IF NOT EXISTS freshness(metric TEXT NOT NULL, bucket INTEGER NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY(metric, bucket));
            """)
        hasReasons = true
        hasDetails = true
    }

    // MARK: seeds

    /// Keeps the seeds of this run with those of earlier ones.
    func remember(seeds: [WebURL], now: Date) throws {
        guard !seeds.isEmpty else { return }
        try connection.transaction {
            let insert = try connection.statement("INSERT OR IGNORE INTO seeds(url, added) VALUES(?, ?)")
            for seed in seeds { try insert.run([.text(seed.string), .real(now.timeIntervalSince1970)]) }
        }
    }

    /// Every seed the data folder was given.
    func seeds() throws -> [WebURL] {
        let statement = try connection.statement("SELECT url FROM seeds ORDER BY added, url")
        var seeds: [WebURL] = []
        while try statement.step() { if let url = statement.string(0).flatMap(WebURL.init) { seeds.append(url) } }
        return seeds
    }

    /// Releases claims left by a run that was killed.
    func releaseClaims() throws {
        try connection.execute("UPDATE urls SET claimed = 0 WHERE claimed = 1")
    }

    // MARK: adding

    /// Adds URLs not yet known (known ones are left as they are); returns how many were new.
    @discardableResult
    func add(_ urls: [FrontierURL], now: Date) throws -> Int {
        guard !urls.isEmpty else { return 0 }
        let statement = try connection.statement("""
            INSERT OR IGNORE INTO urls(url, origin, depth, found_on, from_sitemap, priority, redirects, due, changefreq, sitemap_lastmod)
            VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var added = 0
        for new in urls {
            try statement.run([
                .text(new.url.string), .text(new.url.origin), .integer(Int64(new.depth)), SQLiteValue(new.foundOn),
                SQLiteValue(new.fromSitemap), .real(new.priority), .integer(Int64(new.redirects)), .real(now.timeIntervalSince1970),
                SQLiteValue(new.changeFrequency), SQLiteValue(new.sitemapLastModified?.timeIntervalSince1970),
            ])
            added += connection.changes
        }
        return added
    }

    /// A known URL a sitemap lists is the owner's (never a trap's); a `lastmod` newer than
    /// the last fetch makes it due at once.
    func noteSitemapEntry(_ url: WebURL, lastModified: Date?, changeFrequency: String?, now: Date) throws {
        try connection.statement("""
            UPDATE urls SET from_sitemap = 1, changefreq = coalesce(?2, changefreq), sitemap_lastmod = coalesce(?3, sitemap_lastmod),
                due = CASE WHEN ?3 IS NOT NULL AND fetched_at IS NOT NULL AND ?3 > fetched_at AND due > ?4 THEN ?4 ELSE due END
            WHERE url = ?1
            """).run([.text(url.string), SQLiteValue(changeFrequency), SQLiteValue(lastModified?.timeIntervalSince1970),
                      .real(now.timeIntervalSince1970)])
    }

    // MARK: choosing

    /// Origins with URLs due at `now` and not claimed.
    func originsWithWork(now: Date) throws -> [String] {
        let statement = try connection.statement(
            "SELECT DISTINCT origin FROM urls WHERE claimed = 0 AND (fetched = 0 OR due <= ?)")
        statement.bind(1, now.timeIntervalSince1970)
        var origins: [String] = []
        while try statement.step() { if let origin = statement.string(0) { origins.append(origin) } }
        return origins
    }

    /// Claims up to `limit` URLs of one origin in ``ClaimOrder``: notified ones, those due
    /// again (most overdue first), then new ones (sitemap URLs first, then the shallowest).
    func claim(origin: String, now: Date, limit: Int) throws -> [FrontierEntry] {
        // One transaction: its marks are one write to the log, not one each.
        try transaction { try claimRows(origin: origin, now: now, limit: limit) }
    }

    private func claimRows(origin: String, now: Date, limit: Int) throws -> [FrontierEntry] {
        var entries: [FrontierEntry] = []
        // Every row read is claimed, also one whose URL no longer parses (it is never
        // handed out, and a run does not read it again).
        var claimed: [Int64] = []
        func read(_ statement: SQLiteStatement) throws {
            while try statement.step() {
                claimed.append(Int64(statement.int(0)))
                if let entry = FrontierEntry(row: SQLiteRow(statement: statement)) { entries.append(entry) }
            }
        }
        let noticed = try connection.statement("""
            SELECT \(FrontierEntry.rowColumns) FROM urls INDEXED BY urls_noticed WHERE origin = ? AND claimed = 0 AND noticed IS NOT NULL AND due <= ?
            ORDER BY \(ClaimOrder.noticedSQL) LIMIT ?
            """)
        noticed.bind([.text(origin), .real(now.timeIntervalSince1970), .integer(Int64(limit))])
        try read(noticed)
        let revisit = try connection.statement("""
            SELECT \(FrontierEntry.rowColumns) FROM urls WHERE origin = ? AND claimed = 0 AND fetched = 1 AND due <= ? AND noticed IS NULL
            ORDER BY \(ClaimOrder.revisitsSQL) LIMIT ?
            """)
        if claimed.count < limit {
            revisit.bind([.text(origin), .real(now.timeIntervalSince1970), .integer(Int64(limit - claimed.count))])
            try read(revisit)
        }
        // The planner would pick urls_revisit for the due range and then sort every new URL
        // of the origin; walking urls_new in order stops after `limit` rows.
        if claimed.count < limit {
            let fresh = try connection.statement("""
                SELECT \(FrontierEntry.rowColumns) FROM urls INDEXED BY urls_new WHERE origin = ? AND claimed = 0 AND fetched = 0 AND due <= ?
                    AND noticed IS NULL
                ORDER BY \(ClaimOrder.newURLsSQL) LIMIT ?
                """)
            fresh.bind([.text(origin), .real(now.timeIntervalSince1970), .integer(Int64(limit - claimed.count))])
            try read(fresh)
        }
        guard !claimed.isEmpty else { return [] }
        let mark = try connection.statement("UPDATE urls SET claimed = 1 WHERE id = ?")
        for id in claimed { try mark.run([.integer(id)]) }
        return entries
    }

    // MARK: recording

    /// Writes fetches' outcomes. A notice taken after a page was handled is kept, and keeps
    /// the URL due: what was fetched may predate the change it announced.
    /// A page whose content changed drops its old digest from `contents`: kept, it would grow a
    /// row a version, and make another URL with the old content a duplicate of a page that no
    /// longer has it.
    func record(_ outcomes: [FrontierOutcome], now: Date) throws {
        let forget = try connection.statement("""
            DELETE FROM contents WHERE (hash, url) = (SELECT content_hash, url FROM urls WHERE id = ?1 AND content_hash IS NOT ?2)
            """)
        for o in outcomes { try forget.run([.integer(o.id), SQLiteValue(o.contentHash)]) }
        let statement = try connection.statement("""
            UPDATE urls SET state = ?2, due = CASE WHEN noticed > ?17 THEN noticed ELSE ?3 END,
                noticed = CASE WHEN noticed > ?17 THEN noticed END, status = ?4, etag = ?5, last_modified = ?6, content_hash = ?7, item_id = ?8,
                failures = ?9, first_failure = ?10, interval = ?11, redirected_to = ?12, fetched = 1, claimed = 0, fetched_at = ?13,
                changes = changes + ?14, reason = ?15, detail = ?16
            WHERE id = ?1
            """)
        for o in outcomes {
            try statement.run([
                .integer(o.id), .text(o.state.rawValue), .real(o.due.timeIntervalSince1970), SQLiteValue(o.status), SQLiteValue(o.etag),
                SQLiteValue(o.lastModified), SQLiteValue(o.contentHash), SQLiteValue(o.itemID), .integer(Int64(o.failures)),
                SQLiteValue(o.firstFailure?.timeIntervalSince1970), SQLiteValue(o.interval), SQLiteValue(o.redirectedTo),
                .real(now.timeIntervalSince1970), .integer(o.changed ? 1 : 0), SQLiteValue(o.reason), SQLiteValue(o.detail),
                .real((o.handled ?? now).timeIntervalSince1970),
            ])
        }
    }

    /// Returns a claimed URL to the queue untouched (the run stopped before fetching it).
    /// One transaction for them all: a woken continuous run hands back every host's claims.
    func release(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        let statement = try connection.statement("UPDATE urls SET claimed = 0 WHERE id = ?")
        try transaction { for id in ids { try statement.run([.integer(id)]) } }
    }

    /// Makes a claimed URL due again at `due` without counting it as fetched (its host
    /// asked to slow down). It stays claimed for the rest of this run, so a host that keeps
    /// answering 429 is not asked again and again; the next run releases it.
    func postpone(_ id: Int64, until due: Date) throws {
        try connection.statement("UPDATE urls SET due = ? WHERE id = ?").run([.real(due.timeIntervalSince1970), .integer(id)])
    }

    // MARK: content digests

    /// The first URL whose body had this digest, if another URL did.
    func firstURL(withContent hash: String) throws -> String? {
        let statement = try connection.statement("SELECT url FROM contents WHERE hash = ?")
        statement.bind(1, hash)
        defer { statement.reset() }
        return try statement.step() ? statement.string(0) : nil
    }

    func recordContent(_ hash: String, url: String) throws {
        try connection.statement("INSERT OR IGNORE INTO contents(hash, url) VALUES(?, ?)").run([.text(hash), .text(url)])
    }

    // MARK: text fingerprints

    /// The SimHashes of an origin's pages that have an item now, at most `limit`.
    func fingerprints(origin: String, limit: Int) throws -> [(url: String, simhash: UInt64)] {
        let statement = try connection.statement("""
            SELECT f.url, f.simhash FROM fingerprints f JOIN urls u ON u.url = f.url
            WHERE f.origin = ? AND u.item_id IS NOT NULL LIMIT ?
            """)
        statement.bind(1, origin)
        statement.bind(2, Int64(limit))
        var prints: [(url: String, simhash: UInt64)] = []
        while try statement.step() {
            if let url = statement.string(0) { prints.append((url, UInt64(bitPattern: Int64(statement.int(1))))) }
        }
        return prints
    }

    func recordFingerprint(_ simhash: UInt64, url: String, origin: String) throws {
        try connection.statement("INSERT OR REPLACE INTO fingerprints(url, origin, simhash) VALUES(?, ?, ?)")
            .run([.text(url), .text(origin), .integer(Int64(bitPattern: simhash))])
    }

    /// Runs `body` in one transaction on the frontier's connection.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.transaction("IMMEDIATE", body)
    }

    // MARK: hosts

    /// Hosts whose sitemaps were last read before `cutoff`, so a run reads them again even
    /// when none of their URLs is due.
    func originsWithSitemapsReadBefore(_ cutoff: Date) throws -> [String] {
        let statement = try connection.statement("""
            SELECT origin FROM hosts WHERE robots_fetched IS NOT NULL AND (sitemaps_fetched IS NULL OR sitemaps_fetched <= ?)
            """)
        statement.bind(1, cutoff.timeIntervalSince1970)
        var origins: [String] = []
        while try statement.step() { origins.append(statement.string(0) ?? "") }
        return origins
    }

    func host(_ origin: String) throws -> HostRecord? {
        let statement = try connection.statement("SELECT \(HostRecord.rowColumns) FROM hosts WHERE origin = ?")
        statement.bind(1, origin)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return HostRecord(origin: origin, row: SQLiteRow(statement: statement), from: 0)
    }

    func save(_ host: HostRecord) throws {
        try connection.statement("""
            INSERT INTO hosts(origin, robots_status, robots_body, robots_fetched, association_fetched, aasa, assetlinks, backoff_until, sitemaps_fetched)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT(origin) DO UPDATE SET robots_status = ?2, robots_body = ?3, robots_fetched = ?4, association_fetched = ?5,
                aasa = ?6, assetlinks = ?7, backoff_until = ?8, sitemaps_fetched = ?9
            """).run([
            .text(host.origin), SQLiteValue(host.robotsStatus), host.robotsBody.map(SQLiteValue.blob) ?? .null,
            SQLiteValue(host.robotsFetched?.timeIntervalSince1970), SQLiteValue(host.associationFetched?.timeIntervalSince1970),
            host.aasaBody.map(SQLiteValue.blob) ?? .null, host.assetLinksBody.map(SQLiteValue.blob) ?? .null,
            SQLiteValue(host.backoffUntil?.timeIntervalSince1970), SQLiteValue(host.sitemapsFetched?.timeIntervalSince1970),
        ])
    }
}

@available(*, unavailable)
extension Frontier: Sendable {}
