import Foundation
import JSON
import SearchModel
import ServiceAPI

extension SearchRouter {
    /// A long request's relevance feedback over the shards, as one index runs it
    /// (``RelevanceFeedback``): the shards' first answers (the search round's `firstStage`)
    /// merged into the whole index's; round three, the readings of its best documents from
    /// the shards that hold them; round four, every shard's counts of the words the
    /// expansion may add; then the words chosen here, and round five, each shard's part of
    /// the first answer scored again with them. The merge of those answers; nil when no word
    /// is added, or a round lost a shard (the first answer then stands, ranked without
    /// feedback, and `searchlight_router_feedback_lost_total` counts it).
    func feedback(_ search: SearchRequest, statistics: CorpusStatistics, firstStage: [(shard: Int, candidates: [FirstStageCandidate])],
                  map: ShardMap, keep: Int) -> ResultMerge? {
        let first = RelevanceFeedback.FirstAnswer(firstStage)
        // Fewer leading documents than a word must be shared by: no word can be added.
        guard first.leading >= RelevanceFeedback.minimumDocuments else { return nil }
        let shards = 0..<map.count
        let documents = shards.map { first.share(of: $0, in: first.leading) }
        var readings: [(shard: Int, readings: [RelevanceFeedback.Reading])] = []
        var excluded = Set<[UInt8]>()
        let readers = map.without(Set(shards.filter { documents[$0] == 0 }))
        let readingBodies = documents.map { count -> JSONObject in
            var body = ShardSearchBody.json(for: search, round: ShardRound(statistics: statistics))
            body.append("count", JSONValue(max(1, count)))
            return body
        }
        for (shard, read) in post(APIPath.shardFeedback, readingBodies, readers, read: { _, json in ShardFeedback.readings(json).map(Readings.init) }).enumerated()
        where documents[shard] > 0 {
            guard case .value(let part)? = read else { return lost() }
            readings.append((shard, part.readings))
            excluded.formUnion(part.excluded)
        }
        let ordered = first.ordered(readings)
        // The words' counts, the likeliest first: the expansion takes the first ten that are
        // not in half the index, so it seldom reads past the first few dozen; when it would,
        // the counts are asked again for twice as many.
        let candidates = Array(RelevanceFeedback.candidates(of: ordered, excluding: excluded).prefix(ShardFeedback.Limits.words))
        var asked = min(candidates.count, Self.feedbackWords)
        var terms: [RelevanceFeedback.Term]
        var counted: CorpusStatistics
        while true {
            var wordsBody = ShardSearchBody.json(for: search)
            wordsBody.append("words", ShardFeedback.json(words: Array(candidates.prefix(asked))))
            var parts: [CorpusStatistics] = []
            for (shard, read) in post(APIPath.shardStatistics, [wordsBody], map, read: { _, json in try? CorpusStatistics(json: json) }).enumerated()
            where !map.replicas[shard].isEmpty {
                guard case .value(let part)? = read else { return lost() }
                parts.append(part)
            }
            counted = CorpusStatistics.merged(parts)
            let known = Set(candidates.prefix(asked))
            var beyond = false
            terms = RelevanceFeedback.expansion(of: ordered, excluding: excluded, frequency: { word in
                if !known.contains(word) { beyond = true }
                return counted.frequencies[word] ?? 0
            }, documentCount: statistics.documents)
            guard beyond, asked < candidates.count else { break }
            asked = min(candidates.count, 2 * asked)
        }
        guard !terms.isEmpty else { return nil }
        let depths = shards.map { first.share(of: $0, in: RelevanceFeedback.depth) }
        let rescorers = map.without(Set(shards.filter { depths[$0] == 0 }))
        let rescoreBodies = depths.map { depth -> JSONObject in
            var asked = search
            asked.facets = []
            return ShardSearchBody.json(for: asked, round: ShardRound(statistics: counted, feedback: .rescore(terms: terms, depth: max(1, depth))))
        }
        let now = search.now
        var merge = ResultMerge()
        for (shard, read) in post(APIPath.shardSearch, rescoreBodies, rescorers, read: { shard, json -> ResultMerge? in
            var part = ResultMerge()
            return part.add(json, shard: shard, keep: keep, now: now) ? part : nil
        }).enumerated() where depths[shard] > 0 {
            guard case .value(let part)? = read else { return lost() }
            merge.absorb(part)
        }
        return merge
    }

    /// The candidate words whose counts the first statistics round of feedback asks for.
    static let feedbackWords = 64

    private func lost() -> ResultMerge? {
        count(\.feedbackLost)
        return nil
    }
}

/// One shard's feedback readings, as read from its answer.
struct Readings: Sendable {
    var readings: [RelevanceFeedback.Reading]
    var excluded: Set<[UInt8]>

    init(_ read: (readings: [RelevanceFeedback.Reading], excluded: Set<[UInt8]>)) {
        readings = read.readings
        excluded = read.excluded
    }
}
