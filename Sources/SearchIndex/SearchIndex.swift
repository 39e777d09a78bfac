import FoundationEssentials
import Items
import JSON
import SQLite
import SearchModel
import TextUtilities

/// The searchable index in `index.sqlite`: items in the CoreSpotlight model, their text
/// analysed by the ``SearchTokenizer`` into segments of postings (``SegmentStore``),
/// searched with BM25 as FTS5 ranks (``BM25``) but without scoring every match
/// (``WindowSearch``), reranked by ``Ranking``, with tap actions (``TapAction``).
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
    /// The file's identity: path and the id it was made with, which finds its ``IndexReader``.
    private let identity: String

    public enum Mode: Sendable {
        /// Create the file if it is missing; for writers.
        case create
        /// The file must exist.
        case existing
    }

    /// How much of the database file a connection reads through a memory map rather than
    /// read(2) calls and a private page cache: searches touch pages all over a large index.
    public static let mappedBytes = 1 << 30

    /// The page size of a new index file: a compressed body of a few KB would take a 4 KiB
    /// page of its own, with 16 KiB several share one.
    public static let pageBytes = 16384

    /// Bytes the write-ahead log keeps between checkpoints at most (SQLite's
    /// `journal_size_limit`): a merge's transaction grows it by the segment it writes.
    public static let walBytes = 64 << 20

    /// Bytes the index at `path` takes on disk: the file, its write-ahead log and its
    /// segments' files.
    public static func bytesOnDisk(path: String) -> Int {
        let folder = SegmentFile.directory(forIndex: path)
        let segments = SegmentFile.stored(forIndex: path).map { folder + "/\($0).seg" }
        return ([path, path + "-wal"] + segments).reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }

    /// - Parameter mappedBytes: how much of the file is read through a memory map. A writer
    ///   that mostly appends (a crawl) reads little and gains nothing from the map, but every
    ///   mapped page it touches counts in its resident memory: 0 keeps a crawl of 10,000 pages
    ///   at ~100 MB instead of ~350 MB, with no more CPU (BENCHMARKS.md, issue 30).
    public init(path: String, mode: Mode = .create, mappedBytes: Int = SearchIndex.mappedBytes) throws(SearchIndexError) {
        self.path = path
        if mode == .existing, !FileManager.default.fileExists(atPath: path) { throw .notFound(path: path) }
        do {
            let connection = try SQLiteConnection(path: path, mode: mode == .create ? .readWrite : .readWriteExisting)
            try SearchTokenizer.register(on: connection)
            // A new file has pages of ``pageBytes`` and frees the pages merges leave
            // (``IndexWriter/releaseFreePages(_:)``; both settings take only before the first
            // table), and the WAL is cut back to
            // ``walBytes`` after each checkpoint instead of keeping its largest size.
            try connection.execute("""
                PRAGMA page_size = \(Self.pageBytes); PRAGMA auto_vacuum = INCREMENTAL; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;
                PRAGMA mmap_size = \(max(0, mappedBytes)); PRAGMA journal_size_limit = \(Self.walBytes);
                """)
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
    func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws(SearchIndexError) -> T {
        try withConnectionAndTokenizer { connection, _ in try body(connection) }
    }

    func withConnectionAndTokenizer<T>(_ body: (SQLiteConnection, SearchTokenizer.Session) throws -> T) throws(SearchIndexError) -> T {
        do {
            return try guarded.withConnection(body)
        } catch {
            throw Self.indexError(error, path: path)
        }
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

    /// The changes committed after `sequence`, at most `limit` (``ChangeLog``): what a result
    /// cache tests its answers against. Sequence numbers, unlike ``dataVersion()``, are the
    /// same on every connection.
    public func changes(after sequence: Int64, limit: Int = 256) throws(SearchIndexError) -> IndexChanges {
        try withConnection { connection in
            try connection.transaction("DEFERRED") { try ChangeLog.read(after: sequence, limit: limit, connection) }
        }
    }

    /// What the index holds, for `searchlight status`.
    public func statistics(now: Date = Date()) throws(SearchIndexError) -> ItemCounts {
        try withConnection { connection in
            var bySource: [String: Int] = [:]
            // Items an ingest wrote are pushed items with an app record: counted as ingested.
            let sources = try connection.statement(
                "SELECT CASE WHEN record IS NOT NULL THEN 'ingested' ELSE source END, count(*) FROM items GROUP BY 1")
            while try sources.step() { bySource[sources.string(0) ?? "", default: 0] += sources.int(1) }
            let expired = try connection.statement("SELECT count(*) FROM items WHERE expires IS NOT NULL AND expires <= ?")
            expired.bind(1, now.timeIntervalSince1970)
            try expired.step()
            let domains = try connection.statement("SELECT count(DISTINCT domain) FROM items")
            try domains.step()
            return ItemCounts(itemsBySource: bySource, expired: expired.int(0), domains: domains.int(0))
        }
    }

    /// The item with that key, or nil.
    public func item(_ key: ItemKey) throws(SearchIndexError) -> SearchableItem? {
        try withConnection { connection in
            let statement = try connection.statement("SELECT \(IndexSearch.itemColumns) FROM items i WHERE owner = ? AND uid = ?")
            statement.bind([.text(key.storedOwner), .text(key.identifier)])
            return try statement.step() ? IndexSearch.item(from: statement, offset: 0) : nil
        }
    }

    /// The keys of every item with that identifier, whoever owns it (at most `limit`).
    public func keys(identifier: String, limit: Int = 16) throws(SearchIndexError) -> [ItemKey] {
        try withConnection { connection in
            let statement = try connection.statement("SELECT owner FROM items WHERE uid = ? ORDER BY owner LIMIT ?")
            statement.bind([.text(identifier), .integer(Int64(limit))])
            var keys: [ItemKey] = []
            while try statement.step() { keys.append(ItemKey(owner: ItemKey.owner(stored: statement.string(0)), identifier: identifier)) }
            return keys
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
        try answer(request, retrieval: retrieval).response
    }

    /// What the process keeps of this file between searches, shared by every index open on it.
    var reader: IndexReader { IndexReader.reader(for: identity) }

    /// ``search(_:retrieval:)``'s answer with what it was computed from (for a result
    /// cache), and on a router's shard, ranked with the whole index's statistics in the
    /// round's order (``ShardRound``).
    public func answer(_ request: SearchRequest, round: ShardRound? = nil, retrieval: Retrieval = .pruned) throws(SearchIndexError) -> SearchAnswer {
        try request.validate()
        return try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction("DEFERRED") {
                let search = try IndexSearch(connection: connection, tokenizer: tokenizer, reader: reader,
                                             exhaustive: retrieval == .exhaustive)
                return try search.run(request, round: round)
            }
        }
    }

    /// Where the item `key` ranks for `request`'s query and why (``Findability``): the
    /// search runs as ``answer(_:round:retrieval:)`` runs it, over the first
    /// ``SearchRequest/Limits/results`` results, without filters or facets.
    public func findability(of key: ItemKey, for request: SearchRequest) throws(SearchIndexError) -> Findability {
        try request.validate()
        return try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction("DEFERRED") {
                try IndexSearch(connection: connection, tokenizer: tokenizer, reader: reader, exhaustive: false).findability(of: key, request)
            }
        }
    }

    /// What a search for `request` reads from this index — its document and token counts
    /// and the document frequencies of the terms its plan looks up — for a router that
    /// adds every shard's up and searches each with the sum (``ShardRound/statistics``).
    public func statistics(for request: SearchRequest, words: [[UInt8]] = []) throws(SearchIndexError) -> CorpusStatistics {
        try request.validate()
        return try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction("DEFERRED") {
                try IndexSearch(connection: connection, tokenizer: tokenizer, reader: reader, exhaustive: false).statistics(request, words: words)
            }
        }
    }

    /// For a router's relevance feedback: how this index reads its best `count` first-stage
    /// candidates for `request` (ranked with the whole index's `statistics`), and the request's
    /// own stem classes (``RelevanceFeedback/expansion(of:excluding:frequency:documentCount:)``).
    public func feedbackReadings(for request: SearchRequest, statistics: CorpusStatistics?, count: Int) throws(SearchIndexError)
        -> (readings: [RelevanceFeedback.Reading], excluded: Set<[UInt8]>)
    {
        try request.validate()
        guard (1...RelevanceFeedback.documents).contains(count) else { throw .invalidQuery("feedback documents must be from 1 to \(RelevanceFeedback.documents)") }
        return try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction("DEFERRED") {
                try IndexSearch(connection: connection, tokenizer: tokenizer, reader: reader, exhaustive: false).feedbackReadings(request, statistics: statistics, count: count)
            }
        }
    }
}
