import JSON
import SearchIndex

/// One answer from the shards' answers (`POST /v1/shard/search`, each asked for the first
/// `offset + limit` results ranked with the whole index's statistics): their results in
/// order of score, ties by identifier as one index orders them, the requested page of it,
/// the totals added up. Results keep the JSON their shard wrote. Pure.
struct ResultMerge {
    struct Result {
        var score: Double
        var key: ItemKey
        var json: JSONValue
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
        for (index, result) in list.enumerated() {
            guard let score = scores[index].doubleValue, let id = result["id"]?.stringValue else { return false }
            results.append(Result(score: score, key: ItemKey(owner: ItemKey.owner(stored: owners[index].stringValue), identifier: id), json: result))
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
        let order = results.indices.sorted { a, b in
            results[a].score != results[b].score ? results[a].score > results[b].score : results[a].key.identifier < results[b].key.identifier
        }
        let page = order.dropFirst(offset).prefix(limit)
        let matchedAnyWord = order.first.map { matchedAnyWordByShard[shardOfResult[$0]] ?? false } ?? false
        return (page.map { results[$0] }, matchedAnyWord)
    }
}
