import FoundationEssentials
import Items
import JSON
import SQLite

/// Every write to the index's items and postings, inside the caller's transaction: rows
/// removed (and their postings left to the next merge), rows inserted under new rowids,
/// their postings written as one new segment, the BM25 counts kept in step, and what the
/// write changed in the change log (``ChangeLog``).
struct IndexWriter {
    let connection: SQLiteConnection
    let tokenizer: SearchTokenizer.Session
    private var builder = SegmentBuilder()
    private var documents = 0
    private var tokens = 0
    /// Primary language subtags of the items this write inserted.
    private var languages = Set<String>()
    /// Rows removed or changed in place, for the change log.
    private var changed = ChangeLog.Rows()
    private let bodies = StoredText.Compressor()
    /// Whether this write stored a body (it may be time to train a dictionary).
    private var storedBodies = false
    /// Rows removed by this write, counted against their segments at the end.
    private var removedRowids: [Int64] = []

    init(connection: SQLiteConnection, tokenizer: SearchTokenizer.Session) {
        self.connection = connection
        self.tokenizer = tokenizer
    }

    /// Deletes the item rows matching `condition`, and their engagement unless the item is
    /// being replaced by a new version of itself; returns their uids.
    @discardableResult
    mutating func remove(where condition: String, _ values: [SQLiteValue], keepingEngagement: Bool = false) throws -> [String] {
        let statement = try connection.statement("DELETE FROM items WHERE \(condition) RETURNING rowid, length, uid, owner")
        statement.bind(values)
        var removed: [(rowid: Int64, length: Int, uid: String, owner: String)] = []
        while try statement.step() {
            removed.append((Int64(statement.int(0)), statement.int(1), statement.string(2) ?? "", statement.string(3) ?? ""))
        }
        let bodies = try connection.statement("DELETE FROM item_bodies WHERE rowid = ?")
        removedRowids += removed.map(\.rowid)
        for item in removed {
            changed.add(item.rowid)
            try bodies.run([.integer(item.rowid)])
            documents -= 1
            tokens -= item.length
        }
        if !keepingEngagement, !removed.isEmpty {
            let engagement = try connection.statement("DELETE FROM engagement WHERE owner = ? AND uid = ?")
            let networks = try connection.statement("DELETE FROM engagement_networks WHERE owner = ? AND uid = ?")
            for item in removed {
                try engagement.run([.text(item.owner), .text(item.uid)])
                try networks.run([.text(item.owner), .text(item.uid)])
            }
        }
        return removed.map(\.uid)
    }

    /// Notes a row changed in place (its expiration date), for the change log.
    mutating func changed(rowid: Int64) {
        changed.add(rowid)
    }

    /// Inserts an item under a new rowid and adds its postings to this write's segment.
    mutating func insert(_ item: SearchableItem) throws {
        let keywords = item.keywords.joined(separator: ", ")
        let storedKeywords = StoredKeywords.encode(item.keywords)
        let description = item.contentDescription ?? ""
        let length = builder.analyze(columns: [item.title, keywords, description, item.bodyText], tokenizer: tokenizer, language: item.language)
        let domain = item.domain
        builder.add(filterTerms: FilterTerms.terms(of: item, domain: domain))
        let statement = try connection.statement("""
            INSERT INTO items(uid, domain_id, content_type, title, keywords, description, thumbnail, web_url, domain, rating, rating_scale,
                rating_count, price, currency, telephone, address, apps, web_fallback, source, owner, expires, updated, quality, length, record,
                language, rendered, latitude, longitude)
            VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27,
                ?28, ?29)
            RETURNING rowid
            """)
        statement.bind([
            .text(item.uniqueIdentifier), SQLiteValue(item.domainIdentifier), SQLiteValue(item.contentType), .text(item.title),
            .text(storedKeywords), SQLiteValue(item.contentDescription), SQLiteValue(item.thumbnailURL), SQLiteValue(item.webURL),
            SQLiteValue(domain), SQLiteValue(item.rating), .real(item.ratingScale), SQLiteValue(item.ratingCount),
            SQLiteValue(item.price), SQLiteValue(item.currency), SQLiteValue(item.telephone), SQLiteValue(item.address),
            .text(JSONWriter.string(.array(item.apps.map(\.storedJSON)))), SQLiteValue(item.allowsWebFallback), .text(item.source.rawValue),
            .text(item.key.storedOwner), SQLiteValue(item.expirationDate?.timeIntervalSince1970), .real(item.lastUpdated.timeIntervalSince1970),
            .real(Ranking.quality(of: item)), .integer(Int64(length)), SQLiteValue(item.record.map { JSONWriter.string($0.json) }),
            SQLiteValue(item.language), SQLiteValue(item.rendered), SQLiteValue(item.location?.latitude), SQLiteValue(item.location?.longitude),
        ])
        guard try statement.step() else { throw SQLiteError(code: 1, message: "insert returned no row", sql: statement.sql) }
        let rowid = Int64(statement.int(0))
        while try statement.step() {}
        builder.assign(rowid: rowid, key: item.key.orderKey)
        if !item.bodyText.isEmpty {
            try bodies.load(connection)
            storedBodies = true
            try connection.statement("INSERT INTO item_bodies(rowid, body) VALUES(?, ?)").run([.integer(rowid), bodies.value(item.bodyText)])
        }
        documents += 1
        tokens += length
        if let language = Stemmers.primarySubtag(item.language), language != Stemmers.defaultCode { languages.insert(language) }
    }

    /// Writes this write's segment, counts and change. Call once, last.
    mutating func finish() throws {
        if !changed.isEmpty || !builder.isEmpty { try ChangeLog.record(changed, inserted: (builder.terms, builder.sortedTermIDs), connection) }
        changed = ChangeLog.Rows()
        try SegmentStore.recordDeletions(removedRowids, connection)
        removedRowids = []
        try IndexStatistics.add(documents: documents, tokens: tokens, connection)
        try Self.record(languages: languages, connection)
        languages = []
        documents = 0
        tokens = 0
        let stats = try IndexStatistics.read(connection)
        if storedBodies {
            storedBodies = false
            try BodyDictionary.trainIfDue(connection, tokens: stats.tokens, now: Date().timeIntervalSince1970, dictionaries: BodyDictionaries())
        }
        guard !builder.isEmpty, let first = builder.rowids.first, let last = builder.rowids.last else { return }
        let average = BM25.averageLength(documents: stats.documents, tokens: stats.tokens)
        let builder = self.builder
        try SegmentStore.create(connection, documents: builder.documents, averageLength: average, rowids: first...last, holdsFilterTerms: true) { emit in
            try builder.write(averageLength: average, emit: emit)
        }
        self.builder = SegmentBuilder()
    }

    /// Languages besides the default whose stems the index holds, at most this many (queries
    /// are stemmed in each).
    static let maximumLanguages = 8

    /// The languages other than the default that items of the index were stemmed in.
    static func languages(_ connection: SQLiteConnection) throws -> [String] {
        let statement = try connection.statement("SELECT value FROM meta WHERE key = 'languages'")
        guard try statement.step(), let list = statement.string(0) else { return [] }
        return list.split(separator: ",").map(String.init)
    }

    private static func record(languages: Set<String>, _ connection: SQLiteConnection) throws {
        guard !languages.isEmpty else { return }
        let known = try Self.languages(connection)
        let added = languages.subtracting(known).sorted()
        guard !added.isEmpty, known.count < maximumLanguages else { return }
        let all = known + added.prefix(maximumLanguages - known.count)
        try connection.statement("INSERT INTO meta(key, value) VALUES('languages', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
            .run([.text(all.joined(separator: ","))])
    }

    /// Merges segments while a level holds eight; each merge is its own transaction, so a
    /// reader or another writer waits at most one merge. Then gives back free pages if
    /// merges left many.
    static func mergeSegments(_ connection: SQLiteConnection) throws {
        var merged = false
        while try connection.transaction("IMMEDIATE", { () throws -> Bool in
            guard let inputs = SegmentMerger.pick(try SegmentStore.list(connection)) else { return false }
            let stats = try IndexStatistics.read(connection)
            let average = BM25.averageLength(documents: stats.documents, tokens: stats.tokens)
            try SegmentMerger.merge(inputs, connection: connection, averageLength: average)
            return true
        }) { merged = true }
        if merged { try releaseFreePages(connection) }
    }

    /// Free pages past a quarter of the file (a merge frees its inputs' pages, which the
    /// next writes reuse only in part) are given back to the file system: the file shrinks
    /// by them (`incremental_vacuum`, in files made with `auto_vacuum = INCREMENTAL`).
    static func releaseFreePages(_ connection: SQLiteConnection) throws {
        let free = try connection.statement("PRAGMA freelist_count")
        let pages = try connection.statement("PRAGMA page_count")
        guard try free.step(), try pages.step() else { return }
        let freePages = free.int(0)
        let total = pages.int(0)
        free.reset()
        pages.reset()
        guard freePages > 1024, freePages * 4 > total else { return }
        try connection.execute("PRAGMA incremental_vacuum")
    }
}
