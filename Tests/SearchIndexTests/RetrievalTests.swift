import Foundation
import Items
import SQLite
import Testing
import TextUtilities

@testable import SearchIndex

/// The index's own postings against the two references they must agree with: FTS5's
/// bm25() over the same text (with the engine's `b`), and exhaustive scoring of every match.
@Suite struct RetrievalTests {
    /// A small Zipf-like vocabulary, so some words are in most documents and some in few.
    static func corpus(_ count: Int, seed: UInt64) -> [SearchableItem] {
        var generator = SplitMix64(seed: seed)
        func next() -> UInt64 { generator.next() }
        let vocabulary = (0..<400).map { "w\($0)" } + ["直播", "篮球", "博物馆"]
        func word() -> String {
            // P(rank r) ∝ 1/(r + 3)
            let weights = vocabulary.indices.map { 1 / Double($0 + 3) }
            var target = Double(next() % 1_000_000) / 1_000_000 * weights.reduce(0, +)
            for (index, weight) in weights.enumerated() {
                target -= weight
                if target <= 0 { return vocabulary[index] }
            }
            return vocabulary[vocabulary.count - 1]
        }
        func text(_ n: Int) -> String { (0..<n).map { _ in word() }.joined(separator: " ") }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        return (0..<count).map { i in
            SearchableItem(uniqueIdentifier: "doc-\(i)", title: text(3), contentDescription: text(8), keywords: [word(), word()],
                           bodyText: text(Int(next() % 60) + 5), source: .crawled, lastUpdated: now)
        }
    }

    static let queries = ["w0", "w1", "w0 w1", "w2 w7", "w5 w0 w9", "w150", "w30 w300", "w3 w399", "直播", "篮球 w0", "博物馆", "w0 w1 w2 w3"]

    @Test func scoresAreFTS5sBM25() throws {
        let t = try TemporaryIndex()
        let items = Self.corpus(600, seed: 3)
        try t.index.upsert(items, now: Date(timeIntervalSince1970: 1_800_000_000))
        // The same text in an FTS5 table with the same tokenizer and weights.
        let reference = try SQLiteConnection(path: t.directory.appendingPathComponent("reference.sqlite").path)
        try SearchTokenizer.register(on: reference)
        try reference.execute("CREATE VIRTUAL TABLE fts USING fts5(title, keywords, description, body, tokenize='searchlight')")
        let insert = try reference.statement("INSERT INTO fts(rowid, title, keywords, description, body) VALUES(?, ?, ?, ?, ?)")
        for (i, item) in items.enumerated() {
            try insert.run([.integer(Int64(i)), .text(item.title), .text(item.keywords.joined(separator: ", ")),
                            .text(item.contentDescription ?? ""), .text(item.bodyText)])
        }
        let scores = try FTS5Reference(reference)
        for query in Self.queries {
            let expected = scores.top(query.split(separator: " ").map { t.index.testTokens(String($0)) }, k: 20)
            let ours = try t.index.candidates(query, k: 20)
            #expect(ours.count == expected.count, "\(query)")
            for (a, b) in zip(ours.map(\.score), expected) {
                #expect(abs(a - b) <= 1e-9 * max(1, abs(b)), "\(query): \(a) against FTS5's \(b)")
            }
        }
    }

    /// FTS5's bm25() with the engine's constants (FTS5's own `b` is fixed at 0.75), over the
    /// FTS5 table's own record of the text: fts5vocab's instances give every token's column
    /// and position (a CJK unigram at its bigram's), so the lengths (positions, colocated
    /// tokens once), the document frequencies and each phrase's weighted count are FTS5's.
    struct FTS5Reference {
        /// By document: by token, its (column, position)s.
        var instances: [Int64: [String: Set<[Int]>]] = [:]
        var lengths: [Int64: Int] = [:]
        var documents = 0

        init(_ connection: SQLiteConnection) throws {
            try connection.execute("CREATE VIRTUAL TABLE vocabulary USING fts5vocab(fts, instance)")
            let columns = ["title": 0, "keywords": 1, "description": 2, "body": 3]
            let rows = try connection.prepare("SELECT term, doc, col, offset FROM vocabulary")
            var positions: [Int64: Set<[Int]>] = [:]
            while try rows.step() {
                let document = Int64(rows.int(1))
                let place = [columns[rows.string(2) ?? ""] ?? -1, rows.int(3)]
                instances[document, default: [:]][rows.string(0) ?? "", default: []].insert(place)
                positions[document, default: []].insert(place)
            }
            lengths = positions.mapValues(\.count)
            let count = try connection.prepare("SELECT count(*) FROM fts")
            _ = try count.step()
            documents = count.int(0)
        }

        /// The best `k` scores of the documents holding every phrase, best first.
        func top(_ phrases: [[String]], k: Int) -> [Double] {
            let averageLength = Double(lengths.values.reduce(0, +)) / Double(documents)
            var counts: [[Int64: Double]] = []
            for phrase in phrases {
                var found: [Int64: Double] = [:]
                for (document, tokens) in instances {
                    guard let first = tokens[phrase[0]] else { continue }
                    var f = 0.0
                    for place in first where phrase.indices.allSatisfy({ tokens[phrase[$0]]?.contains([place[0], place[1] + $0]) == true }) {
                        f += Double(BM25.columnWeights[place[0]])
                    }
                    if f > 0 { found[document] = f }
                }
                counts.append(found)
            }
            let idfs = counts.map { BM25.idf(documents: documents, containing: $0.count) }
            var scores: [Double] = []
            for document in counts.first?.keys.map({ $0 }) ?? [] where counts.allSatisfy({ $0[document] != nil }) {
                var score = 0.0
                for (found, idf) in zip(counts, idfs) {
                    score += idf * BM25.saturation(frequency: found[document]!, length: Double(lengths[document]!), averageLength: averageLength)
                }
                scores.append(score)
            }
            return Array(scores.sorted(by: >).prefix(k))
        }
    }

    @Test func prunedSearchFindsExactlyWhatExhaustiveScoringFinds() throws {
        let t = try TemporaryIndex()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // Many commits: several segments and merges.
        let items = Self.corpus(1500, seed: 11)
        for start in stride(from: 0, to: items.count, by: 30) {
            try t.index.upsert(Array(items[start..<min(items.count, start + 30)]), now: now)
        }
        // Replace and delete some, so segments hold dead postings.
        try t.index.upsert(Self.corpus(100, seed: 12).enumerated().map { var item = $1; item.uniqueIdentifier = "doc-\($0 * 13)"; return item },
                           now: now)
        try t.index.delete(identifiers: (0..<150).map { "doc-\($0 * 7)" })
        #expect(try t.index.segmentCount() < 20, "merges keep the segments few")
        for query in Self.queries + ["w0 w2", "w1 w4", "w10", "w11 w0"] {
            for limit in [1, 10] {
                let request = SearchRequest(query, limit: limit, now: now)
                let pruned = try t.index.search(request)
                let exhaustive = try t.index.search(request, retrieval: .exhaustive)
                #expect(pruned.hits.map(\.item.uniqueIdentifier) == exhaustive.hits.map(\.item.uniqueIdentifier), "\(query) \(limit)")
                #expect(pruned.hits.map(\.score) == exhaustive.hits.map(\.score))
                #expect(pruned.hits.allSatisfy { !$0.item.uniqueIdentifier.isEmpty && (try? t.index.item(ItemKey(owner: nil, identifier: $0.item.uniqueIdentifier))) != nil },
                        "no deleted item comes back")
            }
        }
    }

    @Test func deletedBestMatchesGiveWayToTheNextBest() throws {
        let t = try TemporaryIndex()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // 120 strong matches in one segment, 30 weak ones in another.
        try t.index.upsert((0..<120).map { SearchableItem(uniqueIdentifier: "strong-\($0)", title: "zebra zebra crossing", lastUpdated: now) }, now: now)
        try t.index.upsert((0..<30).map { SearchableItem(uniqueIdentifier: "weak-\($0)", title: "crossing", bodyText: "a zebra", lastUpdated: now) }, now: now)
        // Every strong one goes: their postings stay until a merge.
        try t.index.delete(identifiers: (0..<120).map { "strong-\($0)" })
        let ids = try t.ids("zebra", limit: 10, now: now)
        #expect(ids.count == 10)
        #expect(ids.allSatisfy { $0.hasPrefix("weak-") })
        #expect(try t.index.search(SearchRequest("zebra", limit: 10, now: now), retrieval: .exhaustive).hits.map(\.item.uniqueIdentifier) == ids)
    }

    @Test func mergedIndexEqualsOneBuiltAtOnce() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let items = Self.corpus(1200, seed: 5)
        let merged = try TemporaryIndex()
        for start in stride(from: 0, to: items.count, by: 10) {
            try merged.index.upsert(Array(items[start..<min(items.count, start + 10)]), now: now)
        }
        let single = try TemporaryIndex()
        try single.index.upsert(items, now: now)
        for query in Self.queries {
            let a = try merged.index.search(SearchRequest(query, limit: 20, now: now))
            let b = try single.index.search(SearchRequest(query, limit: 20, now: now))
            #expect(a.hits.map(\.item.uniqueIdentifier) == b.hits.map(\.item.uniqueIdentifier), "\(query)")
            for (x, y) in zip(a.hits, b.hits) { #expect(abs(x.score - y.score) <= 1e-12 * max(1, abs(y.score))) }
        }
    }

    @Test func aVersion1IndexIsMigratedOnOpen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        do {
            // The version 1 schema: text in FTS5, metadata in items.
            let old = try SQLiteConnection(path: path)
            try SearchTokenizer.register(on: old)
            try old.execute("""
                CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO meta VALUES('schema_version', '1');
                CREATE TABLE items(rowid INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, domain_id TEXT, content_type TEXT, thumbnail TEXT,
                    web_url TEXT, domain TEXT, rating REAL, rating_scale REAL NOT NULL DEFAULT 5, rating_count INTEGER, price TEXT,
                    currency TEXT, telephone TEXT, address TEXT, apps TEXT NOT NULL DEFAULT '[]', web_fallback INTEGER NOT NULL DEFAULT 1,
                    source TEXT NOT NULL, owner TEXT, expires REAL, updated REAL NOT NULL, quality REAL NOT NULL DEFAULT 1);
                CREATE INDEX items_domain_id ON items(domain_id);
                CREATE VIRTUAL TABLE items_fts USING fts5(title, keywords, description, body, tokenize='searchlight');
                CREATE VIRTUAL TABLE items_vocab USING fts5vocab('items_fts', 'row');
                CREATE TABLE engagement(uid TEXT PRIMARY KEY, impressions INTEGER NOT NULL DEFAULT 0, clicks INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE batches(name TEXT PRIMARY KEY, state BLOB, updated REAL NOT NULL);
                INSERT INTO items(rowid, uid, domain_id, web_url, domain, rating, apps, source, owner, updated)
                    VALUES(7, 'tart', 'example.recipes', 'https://recipes.example/tart', 'recipes.example', 4.5,
                           '[{"platform":"ios","appStoreId":"123","universalLink":false,"evidence":"pushed"}]', 'pushed', 'recipes', 1800000000);
                INSERT INTO items_fts(rowid, title, keywords, description, body) VALUES(7, 'Lemon tart', 'citrus, baking', 'Sharp and silky', 'shortcrust');
                INSERT INTO items(rowid, uid, source, updated) VALUES(9, 'live', 'crawled', 1800000000);
                INSERT INTO items_fts(rowid, title, keywords, description, body) VALUES(9, '篮球直播', '', '', '');
                """)
        }
        let index = try SearchIndex(path: path)
        let hit = try #require(try index.search(SearchRequest("citrus", snippets: true)).hits.first)
        #expect(hit.item.uniqueIdentifier == "tart")
        #expect(hit.item.rating == 4.5)
        #expect(hit.item.owner == "recipes")
        #expect(hit.item.apps.first?.appStoreID == "123")
        #expect(try index.search(SearchRequest("shortcrust")).hits.count == 1, "the body moved too")
        #expect(try index.search(SearchRequest("直播")).hits.map(\.item.uniqueIdentifier) == ["live"])
        #expect(try index.count() == 2)
        // New items never take an old rowid.
        try index.upsert([SearchableItem(uniqueIdentifier: "new", title: "Lemon curd")])
        #expect(try index.search(SearchRequest("lemon")).hits.count == 2)
    }
}

extension RetrievalTests {
    /// Version 3 knew items by identifier alone: the file migrates to (owner, identifier),
    /// keeping rowids, postings, the rowid sequence and the engagement of items that exist.
    @Test func aVersion3IndexMovesToOwnerScopedIdentities() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([
            SearchableItem(uniqueIdentifier: "https://recipes.example/tart", title: "Lemon tart page", source: .crawled),
            SearchableItem(uniqueIdentifier: "tart", title: "Lemon tart", source: .pushed, owner: "recipes"),
            SearchableItem(uniqueIdentifier: "doomed", title: "Lemon doomed", source: .pushed, owner: "recipes"),
        ])
        var batch = ItemBatch(deleteIdentifiers: ["doomed"])
        batch.owner = "recipes"
        try t.index.commit(batch)
        // Make the file what version 3 wrote.
        try t.index.withConnection { connection in
            try connection.execute("""
                ALTER TABLE items RENAME TO items_new;
                CREATE TABLE items(rowid INTEGER PRIMARY KEY AUTOINCREMENT, uid TEXT NOT NULL UNIQUE, domain_id TEXT, content_type TEXT,
                    title TEXT NOT NULL, keywords TEXT NOT NULL DEFAULT '', description TEXT, thumbnail TEXT, web_url TEXT, domain TEXT,
                    rating REAL, rating_scale REAL NOT NULL DEFAULT 5, rating_count INTEGER, price TEXT, currency TEXT, telephone TEXT,
                    address TEXT, apps TEXT NOT NULL DEFAULT '[]', web_fallback INTEGER NOT NULL DEFAULT 1, source TEXT NOT NULL, owner TEXT,
                    expires REAL, updated REAL NOT NULL, quality REAL NOT NULL DEFAULT 1, length INTEGER NOT NULL DEFAULT 0, record TEXT);
                INSERT INTO items SELECT rowid, uid, domain_id, content_type, title, keywords, description, thumbnail, web_url, domain, rating,
                    rating_scale, rating_count, price, currency, telephone, address, apps, web_fallback, source, nullif(owner, ''), expires,
                    updated, quality, length, record FROM items_new;
                DROP TABLE items_new;
                UPDATE sqlite_sequence SET seq = 100 WHERE name = 'items';
                DROP TABLE engagement;
                DROP TABLE engagement_networks;
                CREATE TABLE engagement(uid TEXT PRIMARY KEY, impressions INTEGER NOT NULL DEFAULT 0, clicks INTEGER NOT NULL DEFAULT 0);
                INSERT INTO engagement VALUES('tart', 30, 9), ('doomed', 1000, 0);
                UPDATE meta SET value = '3' WHERE key = 'schema_version';
                """)
        }
        let index = try SearchIndex(path: t.index.path)
        #expect(try index.item(ItemKey(owner: nil, identifier: "https://recipes.example/tart"))?.title == "Lemon tart page")
        #expect(try index.item(ItemKey(owner: "recipes", identifier: "tart"))?.title == "Lemon tart")
        #expect(try index.engagement(ItemKey(owner: "recipes", identifier: "tart")).impressions == 30)
        #expect(try index.engagement(ItemKey(owner: "recipes", identifier: "doomed")).impressions == 0, "engagement of a gone item is gone")
        #expect(try index.search(SearchRequest("lemon")).hits.count == 2, "the postings still find both")
        // Another owner may now use the identifier, and new rows never take an old rowid.
        var other = try ItemBatch(validating: [SearchableItem(uniqueIdentifier: "tart", title: "Lemon tart again")])
        other.owner = "bakery"
        try index.commit(other)
        #expect(try index.search(SearchRequest("lemon")).hits.count == 3)
        let rowid = try index.withConnection { connection in
            let statement = try connection.statement("SELECT rowid FROM items WHERE owner = 'bakery'")
            try statement.step()
            return statement.int(0)
        }
        #expect(rowid > 100)
    }
}

/// Version 6 files (no `items.rendered`) open as the current version with every item not rendered, and
/// take rendered items after.
@Suite struct RenderedColumnMigrationTests {
    @Test func aVersion6IndexGainsTheRenderedColumn() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("a", "Lemon tart")])
        try t.index.withConnection { connection in
            try connection.execute("""
                ALTER TABLE items DROP COLUMN rendered;
                UPDATE meta SET value = '6' WHERE key = 'schema_version';
                """)
        }
        let index = try SearchIndex(path: t.index.path)
        #expect(try index.item(ItemKey(owner: nil, identifier: "a"))?.rendered == false)
        var shell = item("b", "Lemon tart rendered")
        shell.rendered = true
        try index.upsert([shell])
        #expect(try index.search(SearchRequest("rendered")).hits.first?.item.rendered == true)
        #expect(try index.search(SearchRequest("rendered")).hits.first?.json(showingRecord: false)["rendered"] == true)
        let version = try index.withConnection { connection in
            let statement = try connection.statement("SELECT value FROM meta WHERE key = 'schema_version'")
            try statement.step()
            return statement.string(0)
        }
        #expect(version == String(IndexSchema.version))
    }
}

/// Version 8 files keep the quality an older rule gave: a prose title that repeats "the" was
/// halved as stuffed. Opened now, such an item is judged again; a stuffed one stays halved.
@Suite struct QualityMigrationTests {
    @Test func aVersion8IndexHasItsHalvedItemsJudgedAgain() throws {
        let t = try TemporaryIndex()
        let prose = "The role of the librarian in his field and the function of the public library"
        try t.index.upsert([item("prose", prose, body: "A review of the profession, its training and its public: who reads, what they borrow and why."),
                            item("stuffed", "Pizza pizza pizza pizza")])
        try t.index.withConnection { connection in
            try connection.execute("""
                UPDATE items SET quality = 0.5;
                UPDATE meta SET value = '8' WHERE key = 'schema_version';
                """)
        }
        let index = try SearchIndex(path: t.index.path)
        let qualities = try index.withConnection { connection in
            let statement = try connection.statement("SELECT uid, quality FROM items ORDER BY uid")
            var found: [String: Double] = [:]
            while try statement.step() { found[statement.string(0) ?? ""] = statement.double(1) }
            return found
        }
        #expect(qualities == ["prose": 1, "stuffed": 0.5])
    }

    /// Version 9 had no dictionaries for bodies: opened now, the table is added and the
    /// bodies already stored read as before.
    @Test func aVersion9IndexGainsItsTableOfDictionaries() throws {
        let t = try TemporaryIndex()
        let body = (0..<40).map { "a review of the profession number \($0), its training and its public" }.joined(separator: " ")
        try t.index.upsert([item("review", "The librarian", body: body)])
        try t.index.withConnection { connection in
            try connection.execute("DROP TABLE body_dictionaries; UPDATE meta SET value = '9' WHERE key = 'schema_version';")
        }
        let index = try SearchIndex(path: t.index.path)
        let (version, tables) = try index.withConnection { connection in
            let version = try connection.statement("SELECT value FROM meta WHERE key = 'schema_version'")
            try version.step()
            let tables = try connection.statement("SELECT count(*) FROM sqlite_master WHERE name = 'body_dictionaries'")
            try tables.step()
            return (version.string(0), tables.int(0))
        }
        #expect(version == String(IndexSchema.version) && tables == 1)
        #expect(try index.search(SearchRequest("\"profession number 39\"", limit: 5)).hits.map(\.item.uniqueIdentifier) == ["review"])
    }
}

extension SearchIndex {
    /// A query word's tokens, as the index's tokenizer makes them.
    func testTokens(_ word: String) -> [String] {
        (try? withConnectionAndTokenizer { _, tokenizer in tokenizer.tokens(word, query: true) }) ?? []
    }

    /// The top candidates by BM25 alone, for comparing with FTS5.
    func candidates(_ text: String, k: Int) throws -> [TopK.Entry] {
        try withConnectionAndTokenizer { connection, tokenizer in
            let searcher = try SegmentSearcher(connection: connection, tokenizer: tokenizer, reader: IndexReader.reader(for: path + "#test"))
            let words = text.split(separator: " ").map { tokenizer.tokens(String($0), query: true).map { Array($0.utf8) } }
            return try searcher.top(PostingsQuery(clauses: words.map { [$0] }, requireAll: true), k: k, now: 0, exhaustive: true)
        }
    }

    func segmentInfos() throws -> [SegmentInfo] {
        try withConnectionAndTokenizer { connection, _ in try SegmentStore.list(connection) }
    }

    func segmentCount() throws -> Int {
        try withConnectionAndTokenizer { connection, _ in try SegmentStore.list(connection).count }
    }
}
