import FoundationEssentials
import JSON
import SQLite
import TextUtilities

/// The searchable index in `index.sqlite`: items in the CoreSpotlight model, their text
/// analysed by the ``SearchTokenizer`` into segments of postings (``SegmentStore``),
/// searched with BM25 as FTS5 ranks (``BM25``) but without scoring every match
/// (``BlockMaxSearch``), reranked by ``Ranking``, with tap actions (``TapAction``).
///
/// WAL mode lets searches read while a crawl writes (from another process, too). Writes
/// come in batches, each one transaction — items, postings and counts together: a crash
/// leaves the index as of the last committed batch, a search sees whole batches only, and
/// a batch can carry an indexer's client state to resume from. One connection per
/// instance, serialised by a mutex; open several instances for parallel readers. Segment
/// dictionaries and recently used postings are shared by every instance in the process
/// (``SegmentCache``).
public final class SearchIndex: Sendable {
    public let path: String
    private let guarded: SerializedConnection<SearchTokenizer.Session>
    /// The file's identity, for the process-wide segment cache.
    private let identity: String

    public enum Mode: Sendable {
        /// Create the file if it is missing; for writers.
        case create
        /// The file must exist.
        case existing
    }

    /// How much of the database file a connection reads through a memory map rather than
    /// read(2) calls and a private page cache: searches touch pages all over a large index.
    static let mappedBytes = 1 << 30

    /// Bytes of recently used postings every index in this process may keep in memory
    /// together (default 256 MiB).
    public static var postingsCacheBytes: Int {
        get { SegmentCache.shared.postingsBudget }
        set { SegmentCache.shared.postingsBudget = newValue }
    }

    public init(path: String, mode: Mode = .create) throws(SearchIndexError) {
        self.path = path
        if mode == .existing, !FileManager.default.fileExists(atPath: path) { throw .notFound(path: path) }
        do {
            let connection = try SQLiteConnection(path: path, mode: mode == .create ? .readWrite : .readWriteExisting)
            try SearchTokenizer.register(on: connection)
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = \(Self.mappedBytes);")
            let tokenizer = try SearchTokenizer.Session(connection: connection)
            identity = path + "#" + (try IndexSchema.prepare(connection, tokenizer: tokenizer))
            // A statement left at its row would keep this connection's first snapshot.
            connection.finishStatements()
            self.guarded = SerializedConnection(connection, companion: tokenizer)
        } catch {
            throw Self.indexError(error, path: path)
        }
    }

    /// Any failure as a ``SearchIndexError``: SQLite's keep their codes.
    private static func indexError(_ error: any Error, path: String) -> SearchIndexError {
        switch error {
        case let error as SQLiteError: .database(error, path: path)
        case let error as SearchIndexError: error
        default: SearchIndexError(.database, "\(path): \(error)")
        }
    }

    /// Runs `body` on the connection, mapping SQLite failures to ``SearchIndexError``.
    private func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws(SearchIndexError) -> T {
        try withConnectionAndTokenizer { connection, _ in try body(connection) }
    }

    func withConnectionAndTokenizer<T>(_ body: (SQLiteConnection, SearchTokenizer.Session) throws -> T) throws(SearchIndexError) -> T {
        do {
            return try guarded.withConnection(body)
        } catch {
            throw Self.indexError(error, path: path)
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

    /// Commits a batch in one transaction — items, their postings as a new segment, and
    /// the counts — purging expired items on the way; then merges segments if a level is
    /// full (each merge its own transaction).
    @discardableResult
    public func commit(_ batch: Batch, now: Date = Date()) throws(SearchIndexError) -> (upserted: Int, deleted: Int) {
        if let state = batch.clientState, state.count > Self.maximumClientStateBytes {
            throw .invalidItem("client state is \(state.count) bytes; at most \(Self.maximumClientStateBytes) are kept")
        }
        return try withConnectionAndTokenizer { connection, tokenizer in
            let result = try connection.transaction {
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
                var writer = IndexWriter(connection: connection, tokenizer: tokenizer)
                // With an owner, deletions are limited to its items.
                let mine = batch.owner.map { _ in " AND owner = ?2" } ?? ""
                let ownerValue: [SQLiteValue] = batch.owner.map { [.text($0)] } ?? []
                var deleted = 0
                for id in batch.deleteIdentifiers {
                    deleted += try writer.remove(where: "uid = ?1" + mine, [.text(id)] + ownerValue).count
                }
                for domain in batch.deleteDomains {
                    // `a.b` and everything under `a.b.`: '/' is the character after '.', so
                    // the range ['a.b.', 'a.b/') holds exactly the identifiers below "a.b.".
                    deleted += try writer.remove(where: "(domain_id = ?1 OR (domain_id >= ?1 || '.' AND domain_id < ?1 || '/'))" + mine,
                                                 [.text(domain)] + ownerValue).count
                }
                let confirm = try connection.statement("UPDATE items SET expires = ? WHERE uid = ?")
                for (id, expiration) in batch.confirmations.sorted(by: { $0.key < $1.key }) {
                    try confirm.run([.real(expiration.timeIntervalSince1970), .text(id)])
                }
                deleted += try writer.remove(where: "expires IS NOT NULL AND expires <= ?1", [.real(now.timeIntervalSince1970)]).count
                // The last version of an identifier in the batch wins; one arriving already
                // expired replaces the old version with nothing.
                var latest: [String: Int] = [:]
                for (index, item) in batch.upserts.enumerated() { latest[item.uniqueIdentifier] = index }
                for (index, item) in batch.upserts.enumerated() where latest[item.uniqueIdentifier] == index {
                    try writer.remove(where: "uid = ?1", [.text(item.uniqueIdentifier)])
                    if !item.isExpired(at: now) { try writer.insert(item) }
                }
                if let state = batch.clientState {
                    try connection.statement("INSERT INTO batches(name, state, updated) VALUES(?, ?, ?) ON CONFLICT(name) DO UPDATE SET state = excluded.state, updated = excluded.updated")
                        .run([.text(batch.clientStateName), .blob(state), .real(now.timeIntervalSince1970)])
                }
                try writer.finish()
                return (batch.upserts.count, deleted)
            }
            try IndexWriter.mergeSegments(connection)
            return result
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
        try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction {
                var writer = IndexWriter(connection: connection, tokenizer: tokenizer)
                let removed = try owner.map { try writer.remove(where: "owner = ?1", [.text($0)]) } ?? writer.remove(where: "1", [])
                try writer.finish()
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

    /// Sets items' impressions and clicks to counts kept elsewhere (a node's copy of the
    /// shared store's engagement), in one transaction.
    public func setEngagement(_ counts: [String: (impressions: Int, clicks: Int)]) throws(SearchIndexError) {
        guard !counts.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                let statement = try connection.statement("""
                    INSERT INTO engagement(uid, impressions, clicks) VALUES(?, ?, ?)
                    ON CONFLICT(uid) DO UPDATE SET impressions = excluded.impressions, clicks = excluded.clicks
                    """)
                for (id, count) in counts {
                    try statement.run([.text(id), .integer(Int64(count.impressions)), .integer(Int64(count.clicks))])
                }
            }
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

        public init(itemsBySource: [String: Int], expired: Int, domains: Int) {
            self.itemsBySource = itemsBySource
            self.expired = expired
            self.domains = domains
        }
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
            let statement = try connection.statement("SELECT \(IndexSearch.itemColumns) FROM items i WHERE uid = ?")
            statement.bind(1, identifier)
            return try statement.step() ? IndexSearch.item(from: statement, offset: 0) : nil
        }
    }

    /// The tokens the index makes of `text` (query mode or document mode).
    public func tokens(_ text: String, query: Bool) throws(SearchIndexError) -> [String] {
        try withConnectionAndTokenizer { _, tokenizer in tokenizer.tokens(text, query: query) }
    }

    /// How a search finds its candidates.
    public enum Retrieval: Sendable {
        /// Skipping every block of postings that cannot reach the top candidates (the
        /// default): the same results, without scoring every match.
        case pruned
        /// Scoring every match: the reference the pruned search is measured against.
        case exhaustive
    }

    /// Searches in tiers, each one run only when the ones before found fewer than `limit`
    /// results, and each one's new results ranked after the earlier ones':
    /// 1. every word, exactly;
    /// 2. every word, the last one also as a prefix (search-as-you-type: `lemo` finds lemon);
    /// 3. every word, words the vocabulary does not know also under their spelling
    ///    corrections;
    /// 4. only when nothing matched at all: any word.
    /// All of it in one read transaction, so one snapshot of the index.
    public func search(_ request: SearchRequest, retrieval: Retrieval = .pruned) throws(SearchIndexError) -> SearchResponse {
        try request.validate()
        return try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction("DEFERRED") {
                let search = try IndexSearch(connection: connection, tokenizer: tokenizer, identity: identity,
                                             exhaustive: retrieval == .exhaustive)
                return try search.run(request)
            }
        }
    }
}
