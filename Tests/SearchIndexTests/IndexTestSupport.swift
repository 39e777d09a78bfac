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
/// statistics.
func routed(_ request: SearchRequest, over shards: [SearchIndex], global: Bool = true) throws -> [SearchHit] {
    var asked = request
    if global {
        // Each part's statistics as JSON, as a router receives them.
        asked.statistics = CorpusStatistics.merged(try shards.map { try CorpusStatistics(json: JSONParser.parse(JSONWriter.string($0.statistics(for: request).json))) })
    }
    asked.offset = 0
    asked.limit = request.offset + request.limit
    asked.firstStageOrder = true
    func candidate(_ hit: SearchHit) -> ResultOrder.Candidate { ResultOrder.Candidate(relevance: hit.relevance, score: hit.score, key: hit.item.key.orderKey) }
    let candidates = Array(try shards.flatMap { try $0.search(asked).hits }
        .sorted { candidate($0).precedesByRelevance(candidate($1)) }
        .prefix(ResultOrder.candidates(offset: request.offset, limit: request.limit)))
    return ResultOrder.rescored(candidates.map(candidate)).dropFirst(request.offset).prefix(request.limit).map { candidates[$0] }
}
