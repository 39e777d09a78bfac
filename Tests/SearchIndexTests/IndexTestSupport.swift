import Foundation
import Items
import JSON
import SearchIndex

/// A fresh index in a temporary folder.
final class TemporaryIndex {
    let directory: URL
    let index: SearchIndex

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("searchindex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        index = try SearchIndex(path: directory.appendingPathComponent("index.sqlite").path)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func ids(_ query: String, limit: Int = 10, now: Date = Date()) throws -> [String] {
        try index.search(SearchRequest(query, limit: limit, now: now)).hits.map(\.item.uniqueIdentifier)
    }
}

func item(_ id: String, _ title: String, description: String? = nil, keywords: [String] = [], body: String = "",
          domain: String? = nil, web: String? = nil, apps: [AppTarget] = [], expires: Date? = nil, updated: Date = Date(),
          language: String? = nil) -> SearchableItem
{
    SearchableItem(uniqueIdentifier: id, domainIdentifier: domain, title: title, contentDescription: description, keywords: keywords,
                   webURL: web, apps: apps, bodyText: body, expirationDate: expires, lastUpdated: updated, language: language)
}

/// `request` answered over `shards` as a router answers it: the shards' statistics summed,
/// then each shard's first-stage candidates for the page (ranked with the sum), merged in
/// first-stage order and rescored (``ResultOrder``); `global` false leaves each shard its own
/// statistics. With `feedback`, a long request's relevance feedback runs over the shards
/// (``RoutedFeedback``): their first answers merged, the best documents' readings, the
/// candidate words' statistics, and each shard's part of the first answer scored again.
func routed(_ request: SearchRequest, over shards: [SearchIndex], global: Bool = true, feedback: Bool = true) throws -> [SearchHit] {
    func statistics(_ words: [[UInt8]] = []) throws -> CorpusStatistics {
        // Each part's statistics as JSON, as a router receives them.
        CorpusStatistics.merged(try shards.map { try CorpusStatistics(json: JSONParser.parse(JSONWriter.string($0.statistics(for: request, words: words).json))) })
    }
    var asked = request
    var round = ShardRound(statistics: global ? try statistics() : nil, firstStageOrder: true)
    asked.offset = 0
    asked.limit = request.offset + request.limit
    if global, feedback { round.feedback = .firstStage }
    let answers = try shards.map { try $0.answer(asked, round: round) }
    var hits = answers.map(\.response.hits)
    let lists = answers.enumerated().compactMap { shard, answer in answer.firstStage.map { (shard: shard, candidates: $0) } }
    if !lists.isEmpty, let whole = round.statistics {
        let first = RelevanceFeedback.FirstAnswer(lists)
        var readings: [(shard: Int, readings: [RelevanceFeedback.Reading])] = []
        var excluded = Set<[UInt8]>()
        for (shard, index) in shards.enumerated() where first.share(of: shard, in: first.leading) > 0 {
            let part = try index.feedbackReadings(for: asked, statistics: whole, count: first.share(of: shard, in: first.leading))
            readings.append((shard, part.readings))
            excluded.formUnion(part.excluded)
        }
        let ordered = first.ordered(readings)
        let counted = try statistics(RelevanceFeedback.candidates(of: ordered, excluding: excluded))
        let terms = RelevanceFeedback.expansion(of: ordered, excluding: excluded, frequency: { counted.frequencies[$0] ?? 0 },
                                                documentCount: whole.documents)
        if !terms.isEmpty {
            round.statistics = counted
            for (shard, index) in shards.enumerated() {
                let depth = first.share(of: shard, in: RelevanceFeedback.depth)
                round.feedback = .rescore(terms: terms, depth: max(1, depth))
                hits[shard] = depth > 0 ? try index.answer(asked, round: round).response.hits : []
            }
        }
    }
    func candidate(_ hit: SearchHit) -> ResultOrder.Candidate { ResultOrder.Candidate(relevance: hit.relevance, score: hit.score, key: hit.item.key.orderKey) }
    let candidates = Array(hits.joined()
        .sorted { candidate($0).precedesByRelevance(candidate($1)) }
        .prefix(ResultOrder.candidates(offset: request.offset, limit: request.limit)))
    return ResultOrder.rescored(candidates.map(candidate)).dropFirst(request.offset).prefix(request.limit).map { candidates[$0] }
}
