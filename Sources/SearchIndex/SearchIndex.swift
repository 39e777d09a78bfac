import Foundation
import JSON
import SQLite
import TextUtilities

/// The searchable index in `index.sqlite`: SQLite FTS5 with the ``SearchTokenizer``,
/// items in the CoreSpotlight model, ranking (``Ranking``) and tap actions (``TapAction``).
///
/// WAL mode lets searches read while a crawl writes (from another process, too). Writes
/// come in batches, each one transaction: a crash leaves the index as of the last
/// committed batch, and a batch can carry an indexer's client state to resume from.
/// One connection per instance, serialised by a mutex; open several instances for
/// parallel readers.
public final class SearchIndex: Sendable {
    public let path: String
    private let guarded: SerializedConnection<SearchTokenizer.Session>

    public enum Mode: Sendable {
        /// Create the file if it is missing; for writers.
        case create
        /// The file must exist.
        case existing
    }

    /// How much of the database file a connection reads through a memory map rather than
    /// read(2) calls and a private page cache: searches touch pages all over a large index.
    static let mappedBytes = 1 << 30

    public init(path: String, mode: Mode = .create) throws(SearchIndexError) {
        self.path = path
        if mode == .existing, !FileManager.default.fileExists(atPath: path) { throw .notFound(path: path) }
        do {
            let connection = try SQLiteConnection(path: path, mode: mode == .create ? .readWrite : .readWriteExisting)
            try SearchTokenizer.register(on: connection)
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = \(Self.mappedBytes);")
            try IndexSchema.prepare(connection)
            self.guarded = SerializedConnection(connection, companion: try SearchTokenizer.Session(connection: connection))
        } catch let error as SQLiteError {
            throw .database(error, path: path)
        } catch let error as SearchIndexError {
            throw error
        } catch {
            throw SearchIndexError(.database, "\(path): \(error)")
        }
    }

    /// Runs `body` on the connection, mapping SQLite failures to ``SearchIndexError``.
    private func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws(SearchIndexError) -> T {
        try withConnectionAndTokenizer { connection, _ in try body(connection) }
    }

    private func withConnectionAndTokenizer<T>(_ body: (SQLiteConnection, SearchTokenizer.Session) throws -> T) throws(SearchIndexError) -> T {
        do {
            return try guarded.withConnection(body)
        } catch let error as SQLiteError {
            throw .database(error, path: path)
        } catch let error as SearchIndexError {
            throw error
        } catch {
            throw SearchIndexError(.database, "\(path): \(error)")
        }
    }

    // MARK: writing

    /// One atomic write: upserts, deletions and, optionally, the indexer's client state.
    public struct Batch: Sendable {
        public var upserts: [SearchableItem] = []
        public var deleteIdentifiers: [String] = []
        public var deleteDomains: [String] = []
        /// Items confirmed unchanged (a 304): their expiration moves to the given date.
        public var confirmations: [String: Date] = [:]
        /// Store this state (at most 250 bytes) with the batch under ``clientStateName``.
        public var clientState: [UInt8]?
        public var clientStateName = "default"
        /// Commit only if the stored state equals this (compare-and-swap); `.some(nil)`
        /// expects no state yet.
        public var expectedClientState: [UInt8]??
        /// The owner (an API key's) writing: its deletions touch only its own items, and an
        /// upsert may not replace an item of another owner or one no key wrote (a crawled
        /// page's) (``SearchIndexError/forbidden(_:)``). Nil for the operator's own writes
        /// (the crawler, the command line), which may replace anything.
        public var owner: String?

        public init(upserts: [SearchableItem] = [], deleteIdentifiers: [String] = [], deleteDomains: [String] = []) {
            self.upserts = upserts
            self.deleteIdentifiers = deleteIdentifiers
            self.deleteDomains = deleteDomains
        }
    }

    public static let maximumClientStateBytes = 250

    /// Commits a batch in one transaction; expired items are purged on the way.
    ///
    /// The metadata is written first and the text second: FTS5 (SQLite 3.40) flushes its
    /// pending terms to a new segment at every statement savepoint, and upserts open one
    /// per row, so interleaving the two cut the indexing rate by more than half.
    @discardableResult
    public func commit(_ batch: Batch, now: Date = Date()) throws(SearchIndexError) -> (upserted: Int, deleted: Int) {
        if let state = batch.clientState, state.count > Self.maximumClientStateBytes {
            throw .invalidItem("client state is \(state.count) bytes; at most \(Self.maximumClientStateBytes) are kept")
        }
        return try withConnection { connection in
            try connection.transaction {
                if let expected = batch.expectedClientState {
                    let current = try Self.clientState(batch.clientStateName, connection)
                    guard current == expected else {
                        throw SearchIndexError.conflict("the stored client state of batch '\(batch.clientStateName)' is not the expected one")
                    }
                }
                if let owner = batch.owner {
                    let existing = try connection.statement("SELECT owner FROM items WHERE uid = ?")
                    for (index, item) in batch.upserts.enumerated() {
                        existing.reset()
                        existing.bind(1, item.uniqueIdentifier)
                        // An item no key wrote (a crawled page's, one added from the command
                        // line) belongs to the operator: no key may replace it.
                        if try existing.step(), existing.string(0) != owner {
                            throw SearchIndexError.forbidden("items[\(index)]: the item \(item.uniqueIdentifier) belongs to another owner")
                        }
                    }
                }
                // With an owner, deletions are limited to its items.
                let mine = batch.owner.map { _ in " AND owner = ?2" } ?? ""
                let ownerValue: [SQLiteValue] = batch.owner.map { [.text($0)] } ?? []
                var removed: [Int64] = []
                for id in batch.deleteIdentifiers {
                    removed += try Self.deleteRows("uid = ?1" + mine, [.text(id)] + ownerValue, connection)
                }
                for domain in batch.deleteDomains {
                    // `a.b` and everything under `a.b.`: '/' is the character after '.', so
                    // the range ['a.b.', 'a.b/') holds exactly the identifiers below "a.b.".
                    removed += try Self.deleteRows("(domain_id = ?1 OR (domain_id >= ?1 || '.' AND domain_id < ?1 || '/'))" + mine,
                                                   [.text(domain)] + ownerValue, connection)
                }
                var written = try batch.upserts.map { try (Self.upsertMetadata($0, connection), $0) }
                let confirm = try connection.statement("UPDATE items SET expires = ? WHERE uid = ?")
                for (id, expiration) in batch.confirmations.sorted(by: { $0.key < $1.key }) {
                    try confirm.run([.real(expiration.timeIntervalSince1970), .text(id)])
                }
                let expired = try Self.deleteRows("expires IS NOT NULL AND expires <= ?1", [.real(now.timeIntervalSince1970)], connection)
                removed += expired
                // An item that arrives already expired is purged at once, text and all.
                let purged = Set(expired)
                written.removeAll { purged.contains($0.0) }
                if let state = batch.clientState {
                    try connection.statement("INSERT INTO batches(name, state, updated) VALUES(?, ?, ?) ON CONFLICT(name) DO UPDATE SET state = excluded.state, updated = excluded.updated")
                        .run([.text(batch.clientStateName), .blob(state), .real(now.timeIntervalSince1970)])
                }
                try Self.writeText(removing: removed, adding: written, connection)
                return (batch.upserts.count, removed.count)
            }
        }
    }

    public func upsert(_ items: [SearchableItem], now: Date = Date()) throws(SearchIndexError) {
        try commit(Batch(upserts: items), now: now)
    }

    /// Deletes items by unique identifier; returns how many existed.
    @discardableResult
    public func delete(identifiers: [String]) throws(SearchIndexError) -> Int {
        try commit(Batch(deleteIdentifiers: identifiers)).deleted
    }

    /// Deletes every item whose domain identifier is `domain` or below it (`a.b` removes
    /// `a.b` and `a.b.c`, not `a.bc`).
    @discardableResult
    public func delete(domainIdentifiers: [String]) throws(SearchIndexError) -> Int {
        try commit(Batch(deleteDomains: domainIdentifiers)).deleted
    }

    /// Deletes every item, or every item of one owner.
    @discardableResult
    public func deleteAll(owner: String? = nil) throws(SearchIndexError) -> Int {
        try withConnection { connection in
            try connection.transaction {
                let removed = try owner.map { try Self.deleteRows("owner = ?1", [.text($0)], connection) }
                    ?? Self.deleteRows("1", [], connection)
                try Self.writeText(removing: removed, adding: [], connection)
                return removed.count
            }
        }
    }

    /// Removes expired items; returns how many.
    @discardableResult
    public func purgeExpired(now: Date = Date()) throws(SearchIndexError) -> Int {
        try commit(Batch(), now: now).deleted
    }

    /// The client state stored with the last committed batch of that name.
    public func clientState(batch name: String = "default") throws(SearchIndexError) -> [UInt8]? {
        try withConnection { try Self.clientState(name, $0) }
    }

    /// Adds impressions and clicks for an item (the engagement signal in ``Ranking``).
    public func recordEngagement(itemID: String, impressions: Int, clicks: Int) throws(SearchIndexError) {
        try withConnection { connection in
            try connection.statement("""
                INSERT INTO engagement(uid, impressions, clicks) VALUES(?, ?, ?)
                ON CONFLICT(uid) DO UPDATE SET impressions = impressions + excluded.impressions, clicks = clicks + excluded.clicks
                """).run([.text(itemID), .integer(Int64(impressions)), .integer(Int64(clicks))])
        }
    }

    /// Writes an item's metadata row; returns its rowid.
    private static func upsertMetadata(_ item: SearchableItem, _ connection: SQLiteConnection) throws -> Int64 {
        let metadata = try connection.statement("""
            INSERT INTO items(uid, domain_id, content_type, thumbnail, web_url, domain, rating, rating_scale, rating_count, price,
                currency, telephone, address, apps, web_fallback, source, owner, expires, updated, quality)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)
            ON CONFLICT(uid) DO UPDATE SET domain_id = ?2, content_type = ?3, thumbnail = ?4, web_url = ?5, domain = ?6,
                rating = ?7, rating_scale = ?8, rating_count = ?9, price = ?10, currency = ?11, telephone = ?12, address = ?13,
                apps = ?14, web_fallback = ?15, source = ?16, owner = ?17, expires = ?18, updated = ?19, quality = ?20
            RETURNING rowid
            """)
        metadata.bind([
            .text(item.uniqueIdentifier), SQLiteValue(item.domainIdentifier), SQLiteValue(item.contentType),
            SQLiteValue(item.thumbnailURL), SQLiteValue(item.webURL), SQLiteValue(item.domain), SQLiteValue(item.rating),
            .real(item.ratingScale), SQLiteValue(item.ratingCount), SQLiteValue(item.price), SQLiteValue(item.currency),
            SQLiteValue(item.telephone), SQLiteValue(item.address), .text(JSONWriter.string(.array(item.apps.map(\.storedJSON)))),
            SQLiteValue(item.allowsWebFallback), .text(item.source.rawValue), SQLiteValue(item.owner),
            SQLiteValue(item.expirationDate?.timeIntervalSince1970), .real(item.lastUpdated.timeIntervalSince1970),
            .real(Ranking.quality(of: item)),
        ])
        guard try metadata.step() else { throw SQLiteError(code: 1, message: "upsert returned no row", sql: metadata.sql) }
        let rowid = Int64(metadata.int(0))
        while try metadata.step() {}
        return rowid
    }

    /// Deletes the metadata rows matching `condition`; returns their rowids, whose text
    /// ``writeText(removing:adding:_:)`` then removes.
    private static func deleteRows(_ condition: String, _ values: [SQLiteValue], _ connection: SQLiteConnection) throws -> [Int64] {
        let select = try connection.statement("SELECT rowid FROM items WHERE \(condition)")
        select.bind(values)
        var rowids: [Int64] = []
        while try select.step() { rowids.append(Int64(select.int(0))) }
        guard !rowids.isEmpty else { return [] }
        try connection.statement("DELETE FROM items WHERE \(condition)").run(values)
        return rowids
    }

    /// The second half of a write: the text of removed items goes, the text of written ones
    /// replaces what their rowids had. Single-row statements, so no savepoint flushes.
    private static func writeText(removing removed: [Int64], adding written: [(Int64, SearchableItem)], _ connection: SQLiteConnection) throws {
        let kept = Set(written.map(\.0))
        let delete = try connection.statement("DELETE FROM items_fts WHERE rowid = ?")
        for rowid in removed where !kept.contains(rowid) { try delete.run([.integer(rowid)]) }
        let insert = try connection.statement("INSERT OR REPLACE INTO items_fts(rowid, title, keywords, description, body) VALUES(?, ?, ?, ?, ?)")
        for (rowid, item) in written {
            try insert.run([.integer(rowid), .text(item.title), .text(item.keywords.joined(separator: ", ")),
                            .text(item.contentDescription ?? ""), .text(item.bodyText)])
        }
    }

    private static func clientState(_ name: String, _ connection: SQLiteConnection) throws -> [UInt8]? {
        let statement = try connection.statement("SELECT state FROM batches WHERE name = ?")
        statement.bind(1, name)
        return try statement.step() ? statement.blob(0) : nil
    }

    // MARK: reading

    /// Items in the index, expired ones included until they are purged.
    public func count() throws(SearchIndexError) -> Int {
        try withConnection { connection in
            let statement = try connection.statement("SELECT count(*) FROM items")
            try statement.step()
            return statement.int(0)
        }
    }

    /// A number that changes whenever another connection — in this process or another,
    /// such as a crawl — commits to the index (SQLite's `PRAGMA data_version`). Values
    /// are comparable only between calls on the same `SearchIndex`.
    public func dataVersion() throws(SearchIndexError) -> Int {
        try withConnection { connection in
            let statement = try connection.statement("PRAGMA data_version")
            try statement.step()
            return statement.int(0)
        }
    }

    /// What the index holds, for `searchlight status`.
    public struct Statistics: Sendable {
        /// Items by source (`crawled`, `pushed`, `activity`), expired ones included.
        public var itemsBySource: [String: Int]
        /// Items past their expiration date, out of results and purged at the next write.
        public var expired: Int
        /// Distinct domain identifiers.
        public var domains: Int
        public var items: Int { itemsBySource.values.reduce(0, +) }
    }

    public func statistics(now: Date = Date()) throws(SearchIndexError) -> Statistics {
        try withConnection { connection in
            var bySource: [String: Int] = [:]
            let sources = try connection.statement("SELECT source, count(*) FROM items GROUP BY source")
            while try sources.step() { bySource[sources.string(0) ?? "", default: 0] += sources.int(1) }
            let expired = try connection.statement("SELECT count(*) FROM items WHERE expires IS NOT NULL AND expires <= ?")
            expired.bind(1, now.timeIntervalSince1970)
            try expired.step()
            let domains = try connection.statement("SELECT count(DISTINCT domain) FROM items")
            try domains.step()
            return Statistics(itemsBySource: bySource, expired: expired.int(0), domains: domains.int(0))
        }
    }

    public func item(identifier: String) throws(SearchIndexError) -> SearchableItem? {
        try withConnection { connection in
            let statement = try connection.statement("SELECT \(Self.itemColumns) FROM items i JOIN items_fts f ON f.rowid = i.rowid WHERE uid = ?")
            statement.bind(1, identifier)
            return try statement.step() ? Self.item(from: statement, offset: 0) : nil
        }
    }

    /// The tokens the index makes of `text` (query mode or document mode).
    public func tokens(_ text: String, query: Bool) throws(SearchIndexError) -> [String] {
        try withConnectionAndTokenizer { _, tokenizer in tokenizer.tokens(text, query: query) }
    }

    /// Searches in tiers, each one run only when the ones before found fewer than `limit`
    /// results, and each one's new results ranked after the earlier ones':
    /// 1. every word, exactly;
    /// 2. every word, the last one as a prefix (search-as-you-type: `lemo` finds lemon);
    /// 3. every word, words the vocabulary does not know also under their spelling
    ///    corrections;
    /// 4. only when nothing matched at all: any word.
    public func search(_ request: SearchRequest) throws(SearchIndexError) -> SearchResponse {
        try request.validate()
        return try withConnectionAndTokenizer { connection, tokenizer in
            let query = try SearchQuery(request.text) { tokenizer.tokens($0, query: true) }
            var hits: [SearchHit] = []
            var seen = Set<String>()
            func add(_ expression: String) throws {
                for hit in try Self.run(expression, request, connection) where seen.insert(hit.item.uniqueIdentifier).inserted {
                    hits.append(hit)
                }
            }
            try add(query.matchExpression(requireAll: true, prefix: false))
            if hits.count < request.limit, query.lastWordIsPrefix {
                try add(query.matchExpression(requireAll: true, prefix: true))
            }
            var alternatives: [Int: [String]] = [:]
            if hits.count < request.limit {
                alternatives = try Self.corrections(for: query, connection)
                if !alternatives.isEmpty {
                    try add(query.matchExpression(requireAll: true, prefix: query.lastWordIsPrefix, alternatives: alternatives))
                }
            }
            var matchedAny = false
            if hits.isEmpty, query.words.count > 1 {
                try add(query.matchExpression(requireAll: false, prefix: query.lastWordIsPrefix, alternatives: alternatives))
                matchedAny = !hits.isEmpty
            }
            hits = Array(hits.prefix(request.limit))
            if request.snippets {
                let expression = query.matchExpression(requireAll: false, prefix: query.lastWordIsPrefix, alternatives: alternatives)
                for index in hits.indices {
                    hits[index].snippet = try Self.snippet(expression, uid: hits[index].item.uniqueIdentifier, connection)
                }
            }
            var corrections: [String: [String]] = [:]
            for (index, spellings) in alternatives { corrections[query.words[index]] = spellings }
            return SearchResponse(query: request.text, hits: hits, matchedAnyWord: matchedAny, corrections: corrections)
        }
    }

    /// The columns ``item(from:offset:)`` reads, from `items i` and the text table `f`.
    static let itemColumns = """
        i.uid, i.domain_id, i.content_type, f.title, f.keywords, f.description, i.thumbnail, i.web_url, i.rating, i.rating_scale,
        i.rating_count, i.price, i.currency, i.telephone, i.address, i.apps, i.web_fallback, i.source, i.owner, i.expires, i.updated
        """

    private static func item(from s: SQLiteStatement, offset o: Int32) -> SearchableItem {
        let keywords = (s.string(o + 4) ?? "").split(separator: ",").map { $0.trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
        let description = s.string(o + 5) ?? ""
        return SearchableItem(
            uniqueIdentifier: s.string(o) ?? "", domainIdentifier: s.string(o + 1), contentType: s.string(o + 2),
            title: s.string(o + 3) ?? "", contentDescription: description.isEmpty ? nil : description, keywords: keywords,
            thumbnailURL: s.string(o + 6), webURL: s.string(o + 7), rating: s.optionalDouble(o + 8), ratingScale: s.double(o + 9),
            ratingCount: s.optionalInt(o + 10), price: s.string(o + 11), currency: s.string(o + 12), telephone: s.string(o + 13),
            address: s.string(o + 14), apps: AppTarget.decodeStored(s.string(o + 15) ?? "[]"), allowsWebFallback: s.int(o + 16) != 0,
            expirationDate: s.optionalDouble(o + 19).map(Date.init(timeIntervalSince1970:)),
            source: SearchableItem.Source(rawValue: s.string(o + 17) ?? "") ?? .pushed, owner: s.string(o + 18),
            lastUpdated: Date(timeIntervalSince1970: s.double(o + 20)))
    }

    /// The best candidates by bm25, reranked by ``Ranking``.
    private static func run(_ expression: String, _ request: SearchRequest, _ connection: SQLiteConnection) throws -> [SearchHit] {
        let candidates = max(50, request.limit * 5)
        let statement = try connection.statement("""
            SELECT f.rank, i.quality, coalesce(e.impressions, 0), coalesce(e.clicks, 0), \(itemColumns)
            FROM (SELECT rowid, rank, title, keywords, description FROM items_fts WHERE items_fts MATCH ?1 ORDER BY rank LIMIT ?2) AS f
            JOIN items i ON i.rowid = f.rowid
            LEFT JOIN engagement e ON e.uid = i.uid
            WHERE i.expires IS NULL OR i.expires > ?3
            """)
        statement.bind([.text(expression), .integer(Int64(candidates)), .real(request.now.timeIntervalSince1970)])
        var hits: [SearchHit] = []
        while try statement.step() {
            let item = item(from: statement, offset: 4)
            let score = Ranking.score(
                bm25: statement.double(0), quality: statement.double(1), rating: item.rating, ratingScale: item.ratingScale,
                ratingCount: item.ratingCount, impressions: statement.int(2), clicks: statement.int(3), updated: item.lastUpdated,
                now: request.now)
            hits.append(SearchHit(item: item, score: score,
                                  action: TapAction.resolve(for: item, platform: request.platform, installed: request.installed)))
        }
        return hits.sorted { ($0.score, $1.item.uniqueIdentifier) > ($1.score, $0.item.uniqueIdentifier) }
    }

    private static func snippet(_ expression: String, uid: String, _ connection: SQLiteConnection) throws -> String? {
        let statement = try connection.statement("""
            SELECT snippet(items_fts, -1, ?1, ?2, '…', 16) FROM items_fts
            WHERE items_fts MATCH ?3 AND rowid = (SELECT rowid FROM items WHERE uid = ?4)
            """)
        statement.bind([.text(SearchRequest.snippetStart), .text(SearchRequest.snippetEnd), .text(expression), .text(uid)])
        return try statement.step() ? statement.string(0) : nil
    }

    /// Spelling alternatives for words the vocabulary does not know: terms with the same
    /// first letter within the allowed number of edits, most frequent first.
    private static func corrections(for query: SearchQuery, _ connection: SQLiteConnection) throws -> [Int: [String]] {
        var result: [Int: [String]] = [:]
        for (index, tokens) in query.tokens.enumerated() {
            guard tokens.count == 1, let term = tokens.first, let first = term.unicodeScalars.first,
                first.properties.isAlphabetic, !SearchTokenizer.isCJK(first.value)
            else { continue }
            let edits = TypoTolerance.allowedEdits(forLength: term.unicodeScalars.count)
            guard edits > 0 else { continue }
            let known = try connection.statement("SELECT 1 FROM items_vocab WHERE term = ?")
            known.bind(1, term)
            if try known.step() { continue }
            let upper = String(Character(Unicode.Scalar(first.value + 1) ?? first))
            let candidates = try connection.statement("SELECT term, doc FROM items_vocab WHERE term >= ?1 AND term < ?2")
            candidates.bind([.text(String(first)), .text(upper)])
            let target = Array(term.unicodeScalars)
            var found: [(term: String, documents: Int)] = []
            while try candidates.step() {
                guard let candidate = candidates.string(0) else { continue }
                let scalars = Array(candidate.unicodeScalars)
                guard abs(scalars.count - target.count) <= edits else { continue }
                if TypoTolerance.distance(target, scalars, limit: edits) <= edits { found.append((candidate, candidates.int(1))) }
            }
            let best = found.sorted { ($0.documents, $1.term) > ($1.documents, $0.term) }.prefix(5).map(\.term)
            if !best.isEmpty { result[index] = best }
        }
        return result
    }
}
