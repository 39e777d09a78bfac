import Dispatch
import FoundationEssentials
import Items
import JSON
import SQLite
import SearchModel
import TextUtilities

/// One search, in one read transaction: the query's words turned into clauses of terms
/// and phrases, the tiers of ``SearchIndex/search(_:retrieval:)`` run over the segments,
/// the candidates reranked by ``Ranking`` and given their tap actions and snippets.
struct IndexSearch {
    let connection: SQLiteConnection
    let tokenizer: SearchTokenizer.Session
    let segments: SegmentSearcher
    let exhaustive: Bool
    /// What the process keeps of the index file between searches.
    let reader: IndexReader

    init(connection: SQLiteConnection, tokenizer: SearchTokenizer.Session, reader: IndexReader, exhaustive: Bool) throws {
        self.connection = connection
        self.tokenizer = tokenizer
        self.exhaustive = exhaustive
        self.reader = reader
        segments = try SegmentSearcher(connection: connection, tokenizer: tokenizer, reader: reader)
    }

    func run(_ request: SearchRequest, round: ShardRound?) throws -> SearchAnswer {
        let started = DispatchTime.now().uptimeNanoseconds
        let query = try SearchQuery(request.text) { tokenizer.tokens($0, query: true) }
        let segments = round?.statistics.map(self.segments.using) ?? self.segments
        let languages = try round?.statistics.map { $0.languages.sorted() } ?? IndexWriter.languages(connection)
        let plan = QueryPlan(query, typing: request.typing, terms: segments.dictionary, tokenizer: tokenizer, languages: languages)
        let rows = CandidateRows(connection: connection)
        let selection: Selection
        if request.sort == .distance, let near = request.filter.near, let places = try places(in: near, passing: request.filter) {
            selection = try nearest(among: places, radius: near.radius, plan: plan, request, segments: segments, rows: rows)
        } else {
            let allowed = request.filter.isEmpty ? nil : try reader.filters.rows(request.filter, connection: connection, searching: segments.segments)
            selection = try best(query, plan: plan, languages: languages, request, round: round, segments: segments, rows: rows, allowed: allowed)
        }
        var found = try selection.page.compactMap { ranked in try hit(ranked, request).map { (ranked.rowid, $0) } }
        if request.snippets {
            for index in found.indices {
                guard let document = try segments.analysedText(of: found[index].0) else { continue }
                found[index].1.snippet = Snippet.make(columns: document.columns, language: document.language, terms: selection.plan.highlighted,
                                                      start: SearchRequest.snippetStart, end: SearchRequest.snippetEnd, tokenizer: tokenizer)
            }
        }
        // Whether even the best result lacks some of the words.
        var matchedAny = false
        if selection.plan.termClauses > 1, let first = found.first {
            var terms = selection.plan.query
            terms.clauses = Array(terms.clauses.prefix(selection.plan.termClauses))
            matchedAny = try segments.matchedClauses(first.0, terms) < selection.plan.termClauses
        }
        var response = SearchResponse(query: request.text, hits: found.map(\.1), matchedAnyWord: matchedAny, corrections: selection.plan.corrections,
                                      total: selection.total, totalIsExact: selection.totalIsExact, offset: request.offset,
                                      processingTimeMs: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        response.facets = selection.facets
        return SearchAnswer(response: response, dependencies: Self.dependencies(query, selection, typing: request.typing),
                            firstStage: selection.firstStage)
    }

    /// What a search chose to show, before its items are read: the page, how many matched,
    /// the facets, the plan it ended with (feedback widens it) and every row it read (for a
    /// result cache).
    struct Selection {
        var page: [Ranked]
        var total: Int
        var totalIsExact: Bool
        var facets: FacetCounts?
        var plan: QueryPlan
        var read: [Int64]
        var firstStage: [FirstStageCandidate]?
        /// The answer counted every match: any row removed or re-dated may change it.
        var countsEveryMatch = false
    }

    /// The best matches, ranked (``ResultOrder``), or for a distance order whose circle holds
    /// too many items to list, the best ``Facet/candidates`` of them nearest first: plan
    /// (``RetrievalPlan``) → collect (``ScoredCollector``, and facets over every match with a
    /// ``MatchCollector``) → refine (feedback, a router's rounds) → rank (``Ranking``) → page.
    func best(_ query: SearchQuery, plan first: QueryPlan, languages: [String], _ request: SearchRequest, round: ShardRound?,
                      segments: SegmentSearcher,
                      rows: CandidateRows, allowed: FilterRows?) throws -> Selection {
        let retrieval = RetrievalPlan(request, round: round, distinctTerms: first.distinctTerms,
                                      hasPhrase: first.query.clauses.contains { $0.units.contains { $0.tokens.count > 1 } })
        let now = request.now.timeIntervalSince1970
        let kept = retrieval.keepsFirstAnswer ? try firstAnswerKey(request, plan: first, segments: segments, languages: languages) : nil
        var candidates: [TopK.Entry]
        if case .rescore = retrieval.refinement, let kept, let answer = reader.firstAnswers.answer(kept) {
            candidates = Array(answer.prefix(retrieval.depth))
        } else {
            candidates = try segments.top(first.query, k: retrieval.depth, now: now, exhaustive: exhaustive, rows: rows, allowed: allowed)
        }
        let counted = try facets(request, retrieval, plan: first, candidates: candidates, now: now, segments: segments, allowed: allowed)
        if !counted.read.isEmpty, request.sort == .relevance { candidates = Array(candidates.prefix(retrieval.searched)) }
        let refined = try refine(candidates, retrieval, query: query, plan: first, languages: languages, kept: kept, segments: segments)
        let ranked = try rank(refined.candidates, request, rows: rows)
        // A router's shard answers with every candidate in first-stage order; the router
        // rescores the union as this index would (``ResultOrder``).
        let order: [Int]
        if request.sort == .distance, let near = request.filter.near {
            order = Array(Self.byDistance(ranked, from: near.center, rows: rows).dropFirst(request.offset).prefix(request.limit))
        } else if round?.firstStageOrder == true {
            order = Array(ranked.indices)
        } else {
            order = Array(ResultOrder.rescored(ranked.map(\.candidate)).dropFirst(request.offset).prefix(request.limit))
        }
        // Fewer candidates than asked for: the search saw every match, so the count is exact;
        // facets counted every match, and so the count.
        let limit = request.sort == .distance ? retrieval.depth : retrieval.k
        return Selection(page: order.map { ranked[$0] }, total: counted.matches ?? ranked.count,
                         totalIsExact: counted.matches != nil || refined.candidates.count < limit, facets: counted.facets, plan: refined.plan,
                         read: counted.read + refined.read + refined.candidates.map(\.rowid), firstStage: refined.firstStage,
                         countsEveryMatch: retrieval.countsEveryMatch)
    }

    /// The facets asked for: over every match from the postings when the plan says so
    /// (with the count of matches), else over the candidates (the rows read).
    private func facets(_ request: SearchRequest, _ retrieval: RetrievalPlan, plan: QueryPlan, candidates: [TopK.Entry], now: Double,
                        segments: SegmentSearcher, allowed: FilterRows?) throws -> (facets: FacetCounts?, matches: Int?, read: [Int64]) {
        guard !request.facets.isEmpty else { return (nil, nil, []) }
        guard retrieval.countsEveryMatch else {
            let read = candidates.map(\.rowid)
            return (try FacetCounts.count(request.facets, rowids: read, exact: candidates.count < retrieval.depth, segments: segments.segments,
                                          values: reader.segmentFacets, connection: connection),
                    nil, read)
        }
        reader.segmentFacets.keep(segments: Set(segments.segments.map(\.info.id)))
        var tally = try FacetTally(request.facets, segments: segments.segments, values: reader.segmentFacets, connection: connection)
        let expired = try LiveRows.expired(at: now, connection: connection)
        try segments.collectMatches(plan.query, live: reader.live, expired: expired, allowed: allowed, into: &tally)
        return (tally.counts(exact: true), tally.matches, [])
    }

    /// The first stage's candidates reordered as the plan says: scored again with feedback's
    /// words (local or a router's), or reported to the router; with the plan they were
    /// scored by and the documents feedback read.
    private func refine(_ first: [TopK.Entry], _ retrieval: RetrievalPlan, query: SearchQuery, plan: QueryPlan, languages: [String],
                        kept: FirstAnswerCache.Key?, segments: SegmentSearcher)
        throws -> (candidates: [TopK.Entry], plan: QueryPlan, read: [Int64], firstStage: [FirstStageCandidate]?)
    {
        let k = retrieval.k
        switch retrieval.refinement {
        case .none:
            return (first, plan, [], nil)
        case .reportFirstStage:
            if let kept { reader.firstAnswers.store(kept, Array(first.prefix(RelevanceFeedback.depth))) }
            let reported = first.prefix(RelevanceFeedback.depth).map { FirstStageCandidate(score: $0.score, key: $0.key) }
            return (Array(first.prefix(k)), plan, [], reported)
        case .rescore(let terms):
            let widened = terms.isEmpty ? plan
                : QueryPlan(query, typing: false, terms: segments.dictionary, tokenizer: tokenizer, languages: languages, expansion: terms)
            return (try segments.rescored(first, by: widened.query, k: k), widened, [], nil)
        case .localFeedback:
            let leading = Array(first.prefix(RelevanceFeedback.leading(first.lazy.map(\.score))))
            let expansion = try feedback(leading, query: query, plan: plan, segments: segments)
            guard !expansion.isEmpty else { return (Array(first.prefix(k)), plan, [], nil) }
            let widened = QueryPlan(query, typing: false, terms: segments.dictionary, tokenizer: tokenizer, languages: languages, expansion: expansion)
            return (try segments.rescored(first, by: widened.query, k: k), widened, leading.map(\.rowid), nil)
        }
    }

    /// The places within `circle` that pass the filter's other parts (their rows kept as any
    /// filter's are; the circle, new for each person who moves, is read from the grid alone);
    /// nil when the circle holds more than ``nearestLimit`` places, found without listing them all.
    private func places(in circle: GeoCircle, passing filter: SearchFilter) throws -> [PlaceGrid.Found]? {
        let places = try reader.places.grid(connection: connection).places(in: circle, limit: Self.nearestLimit)
        guard places.count <= Self.nearestLimit else { return nil }
        var others = filter
        others.near = nil
        guard !others.isEmpty else { return places }
        let passing = try reader.filters.scannedRows(others, connection: connection)
        return places.filter { passing.contains($0.rowid) }
    }

    /// The most places a distance order lists and matches: past it (a radius of a country),
    /// the best ``Facet/candidates`` matches are ordered instead.
    static let nearestLimit = 65_536

    /// The nearest matches among the places of a circle (`places`), nearest first in whole
    /// metres, equally near ones by order key (``SearchSort/distance``): the page of them, its
    /// relevance scored. The places are banded by distance and taken outward, a ring at a time
    /// (at least 256 places, then twice as many each time; a band is never split, so equally
    /// near places fall in one ring), each ring matched against the query segment by segment,
    /// until the page's live matches are found: the cost follows the page, not the circle.
    /// With facets every ring is matched (they count every match). The count is exact when
    /// every ring was matched and every match's row read; else it is what was found so far.
    private func nearest(among places: [PlaceGrid.Found], radius: Double, plan: QueryPlan, _ request: SearchRequest,
                         segments: SegmentSearcher, rows: CandidateRows) throws -> Selection {
        let metres = places.map { SearchSort.rounded($0.distance) }
        // Places by distance in 64 bands, each sorted only when reached: equally near places
        // share a band, so a ring never splits them.
        let bands = 64
        var banded = [[Int32]](repeating: [], count: bands + 1)
        for index in places.indices { banded[min(bands, Int(metres[index] / radius * Double(bands)))].append(Int32(index)) }
        let now = request.now.timeIntervalSince1970
        let wanted = request.offset + request.limit
        var ordered: [TopK.Entry] = []
        var live: [TopK.Entry] = []
        var read = 0
        var band = 0
        var ring = 256
        while band <= bands {
            var chunk: [Int] = []
            while band <= bands, chunk.count < ring {
                chunk += banded[band].lazy.map(Int.init)
                band += 1
            }
            guard !chunk.isEmpty else { continue }
            chunk.sort { places[$0].rowid < places[$1].rowid }
            let matches = try segments.matching(plan.query, among: chunk.map { places[$0].rowid })
            let found = matches.sorted { a, b in
                let x = metres[chunk[a.position]], y = metres[chunk[b.position]]
                return x != y ? x < y : a.key < b.key
            }
            ordered += found.map { TopK.Entry(score: 0, key: $0.key, rowid: places[chunk[$0.position]].rowid) }
            if live.count < wanted {
                let fresh = ordered[read...]
                try rows.load(fresh.map(\.rowid))
                live += fresh.filter { entry in rows.row(entry.rowid).map { row in !(row.expires.map { $0 <= now } ?? false) } ?? false }
                read = ordered.count
            }
            ring *= 2
            if live.count >= wanted, request.facets.isEmpty { break }
        }
        let complete = band > bands && read == ordered.count
        let shown = Array(live.dropFirst(request.offset).prefix(request.limit))
        let scored = Dictionary(try segments.rescored(shown, by: plan.query, k: max(1, shown.count)).map { ($0.rowid, $0.score) }) { a, _ in a }
        let page = try rank(shown.map { TopK.Entry(score: scored[$0.rowid] ?? 0, key: $0.key, rowid: $0.rowid) }, request, rows: rows)
        var facets: FacetCounts?
        if !request.facets.isEmpty {
            facets = try FacetCounts.count(request.facets, rowids: ordered.map(\.rowid), exact: complete, segments: segments.segments,
                                          values: reader.segmentFacets, connection: connection)
        }
        return Selection(page: page, total: complete ? live.count : ordered.count, totalIsExact: complete, facets: facets, plan: plan,
                         read: ordered.map(\.rowid))
    }

    /// What the answer read: every candidate (and the documents feedback read), every term
    /// searched and every query term, the
    /// word being typed, and whether corrections were looked up (``IndexChange/affects(_:)``).
    private static func dependencies(_ query: SearchQuery, _ selection: Selection, typing: Bool) -> AnswerDependencies {
        let plan = selection.plan
        var dependencies = AnswerDependencies()
        dependencies.rows = Array(Set(selection.read)).sorted()
        dependencies.countsEveryMatch = selection.countsEveryMatch
        var terms = Set<UInt64>()
        for unit in plan.query.clauses.flatMap(\.units) { for token in unit.tokens { terms.insert(TermFilter.hash(term: token)) } }
        for token in query.tokens.joined() { terms.insert(TermFilter.hash(term: Array(token.utf8))) }
        dependencies.terms = terms.sorted()
        if typing, query.lastWordIsPrefix, let last = query.tokens.last?.last { dependencies.prefixes = [TermFilter.hash(prefix: Array(last.utf8))] }
        dependencies.readsVocabulary = plan.searchedCorrections
        return dependencies
    }

    /// What the request's plan and scores read from this index: the first round of a
    /// search over shards (``CorpusStatistics``).
    func statistics(_ request: SearchRequest, words: [[UInt8]] = []) throws -> CorpusStatistics {
        let query = try SearchQuery(request.text) { tokenizer.tokens($0, query: true) }
        let recorder = StatisticsRecorder()
        var segments = self.segments
        segments.dictionary.recorder = recorder
        let languages = try IndexWriter.languages(connection)
        // Words a router's feedback may add (``RelevanceFeedback/candidates(of:excluding:)``),
        // planned as added words so that every form their clauses read is counted.
        let plan = QueryPlan(query, typing: request.typing, terms: segments.dictionary, tokenizer: tokenizer, languages: languages,
                             expansion: words.map { RelevanceFeedback.Term(token: $0, weight: 1) })
        for unit in plan.query.clauses.flatMap(\.units) { for token in unit.tokens { _ = segments.dictionary.frequency(token) } }
        var statistics = CorpusStatistics()
        statistics.documents = segments.dictionary.documents
        statistics.tokens = segments.dictionary.tokens
        statistics.languages = Set(languages)
        statistics.frequencies = recorder.frequencies
        statistics.completions = recorder.completions
        statistics.spellings = recorder.spellings
        return statistics
    }

    /// A candidate scored by ``Ranking``; its item is read only if it makes the page.
    struct Ranked {
        var rowid: Int64
        var candidate: ResultOrder.Candidate
    }

    /// The candidates, in first-stage order, with their final scores from their BM25 and the
    /// item's signals (``Ranking``); those whose item is gone are left out.
    func rank(_ candidates: [TopK.Entry], _ request: SearchRequest, rows: CandidateRows) throws -> [Ranked] {
        try rows.load(candidates.map(\.rowid))
        var ranked: [Ranked] = []
        for candidate in candidates {
            guard let row = rows.row(candidate.rowid) else { continue }
            let engagement = Ranking.engagementCounts(row.engagement)
            let score = Ranking.score(
                bm25: -candidate.score, quality: row.quality, rating: row.rating, ratingScale: row.ratingScale, ratingCount: row.ratingCount,
                impressions: engagement.impressions, clicks: engagement.clicks, updated: Date(timeIntervalSince1970: row.updated), now: request.now)
            ranked.append(Ranked(rowid: candidate.rowid, candidate: ResultOrder.Candidate(relevance: candidate.score, score: score, key: candidate.key)))
        }
        return ranked
    }

    /// The indexes of `ranked` nearest first, in whole metres, equally near ones by order key;
    /// those without a place last (a filter on a circle keeps none of them).
    private static func byDistance(_ ranked: [Ranked], from center: GeoPoint, rows: CandidateRows) -> [Int] {
        let metres = ranked.map { candidate in
            rows.row(candidate.rowid)?.location.map { SearchSort.rounded(center.distance(to: $0)) } ?? .infinity
        }
        return ranked.indices.sorted { metres[$0] != metres[$1] ? metres[$0] < metres[$1] : ranked[$0].candidate.key < ranked[$1].candidate.key }
    }

    /// A ranked candidate as a result: its item, what a tap does, and how far it is from the
    /// search's place.
    private func hit(_ ranked: Ranked, _ request: SearchRequest) throws -> SearchHit? {
        let statement = try connection.statement("SELECT \(Self.itemColumns) FROM items i WHERE i.rowid = ?")
        statement.bind(1, ranked.rowid)
        guard try statement.step() else { return nil }
        let item = Self.item(from: statement, offset: 0)
        var hit = SearchHit(item: item, score: ranked.candidate.score, relevance: ranked.candidate.relevance,
                            action: TapAction.resolve(for: item, platform: request.platform, installed: request.installed))
        if let center = request.filter.near?.center, let location = item.location {
            hit.distance = SearchSort.rounded(center.distance(to: location))
        }
        return hit
    }

    /// The columns ``item(from:offset:)`` reads, from `items i`.
    static let itemColumns = """
        i.uid, i.domain_id, i.content_type, i.title, i.keywords, i.description, i.thumbnail, i.web_url, i.rating, i.rating_scale,
        i.rating_count, i.price, i.currency, i.telephone, i.address, i.apps, i.web_fallback, i.source, i.owner, i.expires, i.updated,
        i.record, i.language, i.rendered, i.latitude, i.longitude
        """

    static func item(from s: SQLiteStatement, offset o: Int32) -> SearchableItem {
        var item = readItem(from: s, offset: o)
        item.rendered = s.int(o + 23) != 0
        if let latitude = s.optionalDouble(o + 24), let longitude = s.optionalDouble(o + 25) {
            item.location = GeoPoint(latitude: latitude, longitude: longitude)
        }
        return item
    }

    private static func readItem(from s: SQLiteStatement, offset o: Int32) -> SearchableItem {
        let keywords = StoredKeywords.decode(s.string(o + 4) ?? "")
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
            record: s.string(o + 21).flatMap { try? JSONParser.parse($0) }.flatMap(RecordReference.init(json:)),
            language: s.string(o + 22))
    }
}
