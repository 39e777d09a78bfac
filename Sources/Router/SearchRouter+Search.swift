import Dispatch
import Foundation
import HTTPServer
import HTTPTypes
import JSON
import SearchIndex
import Service

extension SearchRouter {
    /// Both rounds of a routed search, then the merge (``ResultMerge``).
    func search(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let search = try SearchService.searchRequest(request, maximumResults: configuration.maximumSearchLimit, now: Date())
        var map = mapForSearch()
        guard map.count > 0 else {
            count(\.failed)
            throw APIError(503, "no-nodes", "no search node of the store is reporting; start `searchlight serve --store …` nodes")
        }
        var fields: [(String, JSONValue)] = [
            ("q", .string(search.text)), ("limit", JSONValue(search.offset + search.limit)), ("offset", 0),
            ("platform", .string(search.platform.rawValue)), ("installed", .array(search.installed.sorted().map(JSONValue.string))),
            ("snippets", .bool(search.snippets)), ("typing", .bool(search.typing)), ("now", JSONValue(search.now.timeIntervalSince1970)),
        ]
        // Round one: what the query reads from each shard.
        var missing = Set(map.missing)
        var parts: [CorpusStatistics] = []
        for (shard, answer) in post("/v1/shard/statistics", JSONObject(fields), map).enumerated() where !missing.contains(shard) {
            guard let answer else {
                missing.insert(shard)
                continue
            }
            if answer.status != 200 { return Self.relayed(answer) }
            guard let json = try? JSONParser.parse(bytes: answer.body), let statistics = try? CorpusStatistics(json: json) else {
                missing.insert(shard)
                continue
            }
            parts.append(statistics)
        }
        // Round two: every shard searches with the whole index's statistics; shards that
        // gave none are not asked (their results would be ranked against numbers that
        // leave them out).
        fields.append(("statistics", CorpusStatistics.merged(parts).json))
        map = map.without(missing)
        var merge = ResultMerge()
        for (shard, answer) in post("/v1/shard/search", JSONObject(fields), map).enumerated() where !missing.contains(shard) {
            guard let answer else {
                missing.insert(shard)
                continue
            }
            if answer.status != 200 { return Self.relayed(answer) }
            guard let json = try? JSONParser.parse(bytes: answer.body), merge.add(json, shard: shard) else {
                missing.insert(shard)
                continue
            }
        }
        guard missing.count < map.count else {
            count(\.failed)
            throw APIError(503, "no-shards", "no shard answered in time; try again")
        }
        count(\.searches)
        if !missing.isEmpty { count(\.partial) }
        let page = merge.page(offset: search.offset, limit: search.limit)
        var object = JSONObject([
            ("query", .string(search.text)), ("offset", JSONValue(search.offset)), ("estimatedTotalHits", JSONValue(merge.total)),
            ("totalHitsExact", .bool(merge.totalIsExact && missing.isEmpty)),
            ("processingTimeMs", JSONValue((Double(DispatchTime.now().uptimeNanoseconds - started) / 1e4).rounded() / 100)),
            ("results", .array(page.results.map(\.json))), ("matchedAnyWord", .bool(page.matchedAnyWord)),
            ("corrections", .object(JSONObject(merge.corrections.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.map(JSONValue.string))) }))),
            ("partial", .bool(!missing.isEmpty)), ("missingShards", .array(missing.sorted().map { JSONValue($0) })),
        ])
        if !page.results.isEmpty { object.append("engagementToken", .string(tokens.issue(for: page.results.map(\.key), now: search.now))) }
        return .json(.object(object))
    }

    private func post(_ path: String, _ body: JSONObject, _ map: ShardMap) -> [FanOut.Answer?] {
        fanOut.post(path, bodies: [JSONWriter.bytes(.object(body))], map: map, hedgeAfter: configuration.hedgeAfter, timeout: configuration.timeout)
    }

    private func count(_ counter: WritableKeyPath<Counters, Int>) {
        counters.withLock { $0[keyPath: counter] += 1 }
    }

    /// A shard's refusal (a 400 every replica would give: the query itself is at fault),
    /// passed on as it came.
    static func relayed(_ answer: FanOut.Answer) -> HTTPServerResponse {
        HTTPServerResponse(status: answer.status, headers: [HTTPField("Content-Type", "application/json")], body: .bytes(answer.body))
    }
}

extension ShardMap {
    /// The same map with `shards` left without replicas (not asked).
    func without(_ shards: Set<Int>) -> ShardMap {
        guard !shards.isEmpty else { return self }
        return ShardMap(count: count, replicas: replicas.indices.map { shards.contains($0) ? [] : replicas[$0] })
    }
}
