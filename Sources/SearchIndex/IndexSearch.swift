import FoundationEssentials
import JSON
import SQLite
import TextUtilities

/// One search, in one read transaction: the query's words turned into clauses of terms
/// and phrases, the tiers of ``SearchIndex/search(_:retrieval:)`` run over the segments,
/// the candidates reranked by ``Ranking`` and given their tap actions and snippets.
struct IndexSearch {
    let connection: SQLiteConnection
    let tokenizer: SearchTokenizer.Session
    let segments: SegmentSearcher
    let exhaustive: Bool

    /// Completions a prefix is searched under at most, the most frequent first (as
    /// Elasticsearch's `max_expansions`): a three-letter prefix can start thousands of words.
    static let maximumCompletions = 50

    init(connection: SQLiteConnection, tokenizer: SearchTokenizer.Session, identity: String, exhaustive: Bool) throws {
        self.connection = connection
        self.tokenizer = tokenizer
        self.exhaustive = exhaustive
        segments = try SegmentSearcher(connection: connection, tokenizer: tokenizer, file: identity)
    }

    func run(_ request: SearchRequest) throws -> SearchResponse {
        let query = try SearchQuery(request.text) { tokenizer.tokens($0, query: true) }
        let words: [[[UInt8]]] = query.tokens.map { $0.map { Array($0.utf8) } }
        var ranked: [Ranked] = []
        var seen = Set<Int64>()
        func add(_ clauses: [[[[UInt8]]]], requireAll: Bool) throws {
            let candidates = try segments.top(PostingsQuery(clauses: clauses, requireAll: requireAll), k: max(50, request.limit * 5),
                                              now: request.now.timeIntervalSince1970, exhaustive: exhaustive)
            for hit in try rank(candidates, request) where seen.insert(hit.rowid).inserted { ranked.append(hit) }
        }
        var clauses = words.map { [$0] }
        try add(clauses, requireAll: true)
        var completions: [[UInt8]] = []
        if query.lastWordIsPrefix, let last = words.last, last.count == 1, ranked.count < request.limit {
            completions = segments.completions(of: last[0], limit: Self.maximumCompletions)
            if !completions.isEmpty {
                clauses[clauses.count - 1] += completions.map { [$0] }
                try add(clauses, requireAll: true)
            }
        }
        var alternatives: [Int: [String]] = [:]
        if ranked.count < request.limit {
            alternatives = corrections(for: query)
            if !alternatives.isEmpty {
                for (index, spellings) in alternatives { clauses[index] += spellings.map { [Array($0.utf8)] } }
                try add(clauses, requireAll: true)
            }
        }
        var matchedAny = false
        if ranked.isEmpty, words.count > 1 {
            try add(clauses, requireAll: false)
            matchedAny = !ranked.isEmpty
        }
        var found = try ranked.prefix(request.limit).compactMap { ranked in try hit(ranked, request).map { (ranked.rowid, $0) } }
        if request.snippets {
            var terms = Set(words.joined())
            terms.formUnion(completions)
            for spellings in alternatives.values { terms.formUnion(spellings.map { Array($0.utf8) }) }
            for index in found.indices {
                let columns = try segments.text(of: found[index].0)
                found[index].1.snippet = Snippet.make(columns: columns, terms: terms, start: SearchRequest.snippetStart,
                                                      end: SearchRequest.snippetEnd, tokenizer: tokenizer)
            }
        }
        let hits = found.map(\.1)
        var corrections: [String: [String]] = [:]
        for (index, spellings) in alternatives { corrections[query.words[index]] = spellings }
        return SearchResponse(query: request.text, hits: hits, matchedAnyWord: matchedAny, corrections: corrections)
    }

    /// A candidate scored by ``Ranking``; its item is read only if it makes the page.
    private struct Ranked {
        var rowid: Int64
        var uid: String
        var score: Double
    }

    /// The candidates scored by ``Ranking`` from their BM25 and the item's signals, best
    /// first (ties by identifier).
    private func rank(_ candidates: [TopK.Entry], _ request: SearchRequest) throws -> [Ranked] {
        let statement = try connection.statement("""
            SELECT i.uid, i.quality, coalesce(e.impressions, 0), coalesce(e.clicks, 0), i.rating, i.rating_scale, i.rating_count, i.updated,
                coalesce(e.anonymous_impressions, 0), coalesce(e.anonymous_clicks, 0), coalesce(e.anonymous_networks, 0)
            FROM items i LEFT JOIN engagement e ON e.owner = i.owner AND e.uid = i.uid WHERE i.rowid = ?
            """)
        var ranked: [Ranked] = []
        for candidate in candidates {
            statement.reset()
            statement.bind(1, candidate.rowid)
            guard try statement.step() else { continue }
            let engagement = Ranking.engagementCounts(EngagementCounts(
                impressions: statement.int(2), clicks: statement.int(3), anonymousImpressions: statement.int(8),
                anonymousClicks: statement.int(9), anonymousNetworks: statement.int(10)))
            let score = Ranking.score(
                bm25: -candidate.score, quality: statement.double(1), rating: statement.optionalDouble(4), ratingScale: statement.double(5),
                ratingCount: statement.optionalInt(6), impressions: engagement.impressions, clicks: engagement.clicks,
                updated: Date(timeIntervalSince1970: statement.double(7)), now: request.now)
            ranked.append(Ranked(rowid: candidate.rowid, uid: statement.string(0) ?? "", score: score))
        }
        return ranked.sorted { ($0.score, $1.uid) > ($1.score, $0.uid) }
    }

    /// A ranked candidate as a result: its item and what a tap does.
    private func hit(_ ranked: Ranked, _ request: SearchRequest) throws -> SearchHit? {
        let statement = try connection.statement("SELECT \(Self.itemColumns) FROM items i WHERE i.rowid = ?")
        statement.bind(1, ranked.rowid)
        guard try statement.step() else { return nil }
        let item = Self.item(from: statement, offset: 0)
        return SearchHit(item: item, score: ranked.score,
                         action: TapAction.resolve(for: item, platform: request.platform, installed: request.installed))
    }

    /// Dictionary entries the spelling corrections of one query read at most, over all its
    /// words and segments; each unknown word gets an equal share (at least
    /// ``minimumCorrectionBudget``), so a query of many unknown words costs no more than a
    /// few milliseconds of one core, whatever the size of the vocabulary.
    static let correctionBudget = 60_000
    static let minimumCorrectionBudget = 2_000
    /// Words of one query that are corrected at most (the first ones).
    static let maximumCorrectedWords = 16

    /// Spelling alternatives for words the vocabulary does not know: terms with the same
    /// first letter within the allowed number of edits, most frequent first.
    private func corrections(for query: SearchQuery) -> [Int: [String]] {
        var unknown: [(index: Int, target: [Unicode.Scalar], edits: Int)] = []
        for (index, tokens) in query.tokens.enumerated() {
            guard tokens.count == 1, let term = tokens.first, let first = term.unicodeScalars.first,
                first.properties.isAlphabetic, !SearchTokenizer.isCJK(first.value)
            else { continue }
            let edits = TypoTolerance.allowedEdits(forLength: term.unicodeScalars.count)
            guard edits > 0, segments.frequency(Array(term.utf8)) == 0 else { continue }
            unknown.append((index, Array(term.unicodeScalars), edits))
            if unknown.count == Self.maximumCorrectedWords { break }
        }
        guard !unknown.isEmpty else { return [:] }
        let share = max(Self.minimumCorrectionBudget, Self.correctionBudget / unknown.count)
        var result: [Int: [String]] = [:]
        for word in unknown {
            let found = segments.fuzzyTerms(near: word.target, edits: word.edits, budget: share)
            let best = found.sorted { $0.documents != $1.documents ? $0.documents > $1.documents : $0.term.lexicographicallyPrecedes($1.term) }
            let spellings = best.prefix(5).map { String(decoding: $0.term, as: UTF8.self) }
            if !spellings.isEmpty { result[word.index] = spellings }
        }
        return result
    }

    /// The columns ``item(from:offset:)`` reads, from `items i`.
    static let itemColumns = """
        i.uid, i.domain_id, i.content_type, i.title, i.keywords, i.description, i.thumbnail, i.web_url, i.rating, i.rating_scale,
        i.rating_count, i.price, i.currency, i.telephone, i.address, i.apps, i.web_fallback, i.source, i.owner, i.expires, i.updated,
        i.record
        """

    static func item(from s: SQLiteStatement, offset o: Int32) -> SearchableItem {
        let keywords = (s.string(o + 4) ?? "").split(separator: ",").map { $0.trimmingASCIIWhitespace() }.filter { !$0.isEmpty }
        let description = s.string(o + 5) ?? ""
        return SearchableItem(
            uniqueIdentifier: s.string(o) ?? "", domainIdentifier: s.string(o + 1), contentType: s.string(o + 2),
            title: s.string(o + 3) ?? "", contentDescription: description.isEmpty ? nil : description, keywords: keywords,
            thumbnailURL: s.string(o + 6), webURL: s.string(o + 7), rating: s.optionalDouble(o + 8), ratingScale: s.double(o + 9),
            ratingCount: s.optionalInt(o + 10), price: s.string(o + 11), currency: s.string(o + 12), telephone: s.string(o + 13),
            address: s.string(o + 14), apps: AppTarget.decodeStored(s.string(o + 15) ?? "[]"), allowsWebFallback: s.int(o + 16) != 0,
            expirationDate: s.optionalDouble(o + 19).map(Date.init(timeIntervalSince1970:)),
            source: SearchableItem.Source(rawValue: s.string(o + 17) ?? "") ?? .pushed, owner: ItemKey.owner(stored: s.string(o + 18)),
            lastUpdated: Date(timeIntervalSince1970: s.double(o + 20)),
            record: s.string(o + 21).flatMap { try? JSONParser.parse($0) }.flatMap(RecordReference.init(json:)))
    }
}
