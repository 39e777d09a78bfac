import Foundation
import Items
import JSON
import SearchModel

/// One answer from the shards' answers (`POST /v1/shard/search`, each giving its first-stage
/// candidates for the page, ranked with the whole index's statistics): every shard's
/// candidates in one first-stage order, the best of them rescored, as one index orders
/// them (``ResultOrder``), the requested page of it, the totals added up. Results are read
/// as hits and held to the item rules (``ShardResultRule``). Pure.
public struct ResultMerge: Sendable {
    public struct Result: Sendable {
        var candidate: ResultOrder.Candidate
        public var key: ItemKey
        /// The result as the router shows it (``ShardResultRule``).
        public var hit: SearchHit
        /// Kilometres from the search's place, when it has one.
        var distance: Double? { hit.distance }
        var score: Double { candidate.score }
    }

    public private(set) var results: [Result] = []
    public private(set) var total = 0
    public private(set) var totalIsExact = true
    /// The shard each result came from said its best result lacked some words.
    private var matchedAnyWordByShard: [Int: Bool] = [:]
    private var shardOfResult: [Int] = []
    public private(set) var corrections: [String: [String]] = [:]
    /// Each shard's facet counts, when it sent them.
    public private(set) var facets: [FacetCounts] = []

    public init() {}

    /// The largest total a shard may give: what a JSON number holds exactly (2^53). A larger
    /// one is a broken or hostile node's, not an index's.
    static let largestTotal = 1 << 53

    /// Adds one shard's answer, its first `keep` candidates (a shard sends them in first-stage
    /// order, and one index would keep no more); false, and nothing of it added, when it is
    /// not a shard search answer or breaks a rule — a total out of range, a score that is not
    /// a number, a result the item rules refuse (``ShardResultRule``): the shard then counts
    /// as missing.
    public mutating func add(_ answer: JSONValue, shard: Int, keep: Int = .max, now: Date = Date()) -> Bool {
        guard let list = answer["results"]?.arrayValue, let scores = answer["scores"]?.arrayValue,
            let owners = answer["owners"]?.arrayValue, scores.count == list.count, owners.count == list.count
        else { return false }
        // A node of an older version sends no relevance: its final scores stand in for it.
        let relevance = answer["relevance"]?.arrayValue ?? scores
        guard relevance.count == list.count else { return false }
        var shardFacets: FacetCounts?
        if let counts = answer["facets"] {
            guard let read = try? FacetCounts(json: counts, exact: answer["facetsExact"]?.boolValue ?? false) else { return false }
            shardFacets = read
        }
        var shardTotal = list.count
        if let value = answer["estimatedTotalHits"] {
            guard let number = value.intValue, (0...Self.largestTotal).contains(number) else { return false }
            shardTotal = number
        }
        var added: [Result] = []
        for (index, result) in list.prefix(max(0, keep)).enumerated() {
            guard let score = scores[index].doubleValue, let first = relevance[index].doubleValue, score.isFinite, first.isFinite,
                let id = result["id"]?.stringValue, let checked = ShardResultRule.checked(result, now: now)
            else { return false }
            let key = ItemKey(owner: ItemKey.owner(stored: owners[index].stringValue), identifier: id)
            added.append(Result(candidate: ResultOrder.Candidate(relevance: first, score: score, key: key.orderKey), key: key, hit: checked))
        }
        results += added
        shardOfResult += Array(repeating: shard, count: added.count)
        let (sum, overflow) = total.addingReportingOverflow(shardTotal)
        total = overflow ? Int.max : sum
        totalIsExact = totalIsExact && (answer["totalHitsExact"]?.boolValue ?? false)
        matchedAnyWordByShard[shard] = answer["matchedAnyWord"]?.boolValue ?? false
        if let shardFacets { facets.append(shardFacets) }
        let termBytes = CorpusStatistics.Limits.termBytes
        for member in (answer["corrections"]?.objectValue?.members ?? []).prefix(CorpusStatistics.Limits.lists)
        where member.key.utf8.count <= termBytes {
            addCorrections(member.key, (member.value.arrayValue?.compactMap(\.stringValue) ?? []).filter { $0.utf8.count <= termBytes })
        }
        return true
    }

    /// Adds what another merge holds (one shard's answer read on its own, as the router reads
    /// each answer as it arrives); absorbing shards' merges in shard order gives what adding
    /// their answers in that order gives.
    public mutating func absorb(_ other: ResultMerge) {
        results += other.results
        shardOfResult += other.shardOfResult
        let (sum, overflow) = total.addingReportingOverflow(other.total)
        total = overflow ? Int.max : sum
        totalIsExact = totalIsExact && other.totalIsExact
        matchedAnyWordByShard.merge(other.matchedAnyWordByShard) { mine, _ in mine }
        facets += other.facets
        for (word, spellings) in other.corrections { addCorrections(word, spellings) }
    }

    /// Every shard plans with the same statistics, so their lists agree; any extra spelling
    /// goes after, the first list's order (best first) kept, within the statistics' limits.
    private mutating func addCorrections(_ word: String, _ spellings: [String]) {
        guard corrections[word] != nil || corrections.count < CorpusStatistics.Limits.lists else { return }
        var list = corrections[word] ?? []
        for spelling in spellings.prefix(CorpusStatistics.Limits.listEntries)
        where !list.contains(spelling) && list.count < CorpusStatistics.Limits.listEntries {
            list.append(spelling)
        }
        corrections[word] = list
    }

    /// The page from `offset`, `limit` long, best first (nearest first for a distance order:
    /// each shard sent its own page in that order), and whether its best result lacks some of
    /// the words (as the shard that holds it said).
    public func page(offset: Int, limit: Int, sort: SearchSort = .relevance) -> (results: [Result], matchedAnyWord: Bool) {
        // Every shard's candidates in first-stage order (a 64-bit order-key collision falls
        // back to owner and identifier), as many as one index would keep, then rescored.
        let firstStage = results.indices.sorted { a, b in
            let x = results[a].candidate, y = results[b].candidate
            if sort == .distance {
                // Nearest first, equally near ones by order key (``SearchSort/distance``).
                if results[a].distance != results[b].distance { return (results[a].distance ?? .infinity) < (results[b].distance ?? .infinity) }
                if x.key != y.key { return x.key < y.key }
                return results[a].key < results[b].key
            }
            if x.relevance != y.relevance || x.key != y.key { return x.precedesByRelevance(y) }
            return results[a].key < results[b].key
        }
        let order: [Int]
        if sort == .distance {
            order = firstStage
        } else {
            let kept = Array(firstStage.prefix(ResultOrder.candidates(offset: offset, limit: limit)))
            order = ResultOrder.rescored(kept.map { results[$0].candidate }).map { kept[$0] }
        }
        let page = order.dropFirst(offset).prefix(limit)
        let matchedAnyWord = order.first.map { matchedAnyWordByShard[shardOfResult[$0]] ?? false } ?? false
        return (page.map { results[$0] }, matchedAnyWord)
    }
}
