import JSON
import SearchIndex

/// One answer from the shards' answers (`POST /v1/shard/search`, each giving its first-stage
/// candidates for the page, ranked with the whole index's statistics): every shard's
/// candidates in one first-stage order, the best of them rescored, as one index orders
/// them (``ResultOrder``), the requested page of it, the totals added up. Results keep the
/// JSON their shard wrote. Pure.
struct ResultMerge {
    struct Result {
        var candidate: ResultOrder.Candidate
        var key: ItemKey
        var json: JSONValue
        var score: Double { candidate.score }
    }

    var results: [Result] = []
    var total = 0
    var totalIsExact = true
    /// The shard each result came from said its best result lacked some words.
    private var matchedAnyWordByShard: [Int: Bool] = [:]
    private var shardOfResult: [Int] = []
    var corrections: [String: [String]] = [:]

    /// Adds one shard's answer; false when it is not a shard search answer.
    mutating func add(_ answer: JSONValue, shard: Int) -> Bool {
        guard let list = answer["results"]?.arrayValue, let scores = answer["scores"]?.arrayValue,
            let owners = answer["owners"]?.arrayValue, scores.count == list.count, owners.count == list.count
        else { return false }
        // A node of an older version sends no relevance: its final scores stand in for it.
        let relevance = answer["relevance"]?.arrayValue ?? scores
        guard relevance.count == list.count else { return false }
        for (index, result) in list.enumerated() {
            guard let score = scores[index].doubleValue, let first = relevance[index].doubleValue, let id = result["id"]?.stringValue
            else { return false }
            let key = ItemKey(owner: ItemKey.owner(stored: owners[index].stringValue), identifier: id)
            results.append(Result(candidate: ResultOrder.Candidate(relevance: first, score: score, key: key.orderKey), key: key, json: result))
            shardOfResult.append(shard)
        }
        total += answer["estimatedTotalHits"]?.intValue ?? list.count
        totalIsExact = totalIsExact && (answer["totalHitsExact"]?.boolValue ?? false)
        matchedAnyWordByShard[shard] = answer["matchedAnyWord"]?.boolValue ?? false
        for member in answer["corrections"]?.objectValue?.members ?? [] {
            // Every shard plans with the same statistics, so their lists agree; any extra
            // spelling goes after, the first list's order (best first) kept.
            var list = corrections[member.key] ?? []
            for spelling in member.value.arrayValue?.compactMap(\.stringValue) ?? [] where !list.contains(spelling) { list.append(spelling) }
            corrections[member.key] = list
        }
        return true
    }

    /// The page from `offset`, `limit` long, best first, and whether its best result lacks
    /// some of the words (as the shard that holds it said).
    func page(offset: Int, limit: Int) -> (results: [Result], matchedAnyWord: Bool) {
        // Every shard's candidates in first-stage order (a 64-bit order-key collision falls
        // back to owner and identifier), as many as one index would keep, then rescored.
        let firstStage = results.indices.sorted { a, b in
            let x = results[a].candidate, y = results[b].candidate
            if x.relevance != y.relevance || x.key != y.key { return x.precedesByRelevance(y) }
            return results[a].key < results[b].key
        }.prefix(ResultOrder.candidates(offset: offset, limit: limit))
        let kept = Array(firstStage)
        let order = ResultOrder.rescored(kept.map { results[$0].candidate }).map { kept[$0] }
        let page = order.dropFirst(offset).prefix(limit)
        let matchedAnyWord = order.first.map { matchedAnyWordByShard[shardOfResult[$0]] ?? false } ?? false
        return (page.map { results[$0] }, matchedAnyWord)
    }
}
