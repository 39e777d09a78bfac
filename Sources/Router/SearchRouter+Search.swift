import Dispatch
import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchModel
import ServiceAPI

extension SearchRouter {
    /// The rounds of a routed search — statistics, search, and for a long request the
    /// feedback rounds (``feedback(_:statistics:firstStage:map:keep:)``) — then the merge
    /// (``ResultMerge``).
    func search(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        guard searchesInFlight.wrappingAdd(1, ordering: .relaxed).newValue <= configuration.maximumSearchesInFlight else {
            searchesInFlight.wrappingSubtract(1, ordering: .relaxed)
            var busy = APIError(503, "busy", "the router answers \(configuration.maximumSearchesInFlight) searches at once; try again")
            busy.headers = [HTTPField("Retry-After", "1")]
            throw busy
        }
        defer { searchesInFlight.wrappingSubtract(1, ordering: .relaxed) }
        let search = try SearchParameters.request(from: request, maximumResults: configuration.maximumSearchLimit, now: Date())
        var map = mapForSearch()
        guard map.count > 0 else {
            count(\.failed)
            throw APIError(503, "no-nodes", "no search node of the store is reporting; start `searchlight serve --store …` nodes")
        }
        // Round one: what the query reads from each shard.
        var missing = Set(map.missing)
        var parts: [CorpusStatistics] = []
        for (shard, read) in post(APIPath.shardStatistics, [ShardSearchBody.json(for: search)], map, read: { _, json in try? CorpusStatistics(json: json) }).enumerated()
        where !missing.contains(shard) {
            switch read {
            case .value(let statistics): parts.append(statistics)
            case .refusal(let refusal): return refusal
            case nil: missing.insert(shard)
            }
        }
        // Round two: every shard searches with the whole index's statistics; shards that
        // gave none are not asked (their results would be ranked against numbers that
        // leave them out).
        map = map.without(missing)
        var merge = ResultMerge()
        let keep = ResultOrder.candidates(offset: search.offset, limit: search.limit)
        let now = search.now
        let statistics = CorpusStatistics.merged(parts)
        var round = ShardRound(statistics: statistics)
        // A long request's shards also report their first answers (they say when feedback applies).
        if search.sort == .relevance, !search.typing { round.feedback = .firstStage }
        func searchRound(_ round: ShardRound) -> [ShardRead<ShardAnswer>?] {
            post(APIPath.shardSearch, [ShardSearchBody.json(for: search, round: round)], map) { shard, json -> ShardAnswer? in
                var part = ResultMerge()
                guard part.add(json, shard: shard, keep: keep, now: now) else { return nil }
                guard let list = json["firstStage"] else { return ShardAnswer(merge: part, firstStage: nil) }
                return ShardFeedback.firstStage(list).map { ShardAnswer(merge: part, firstStage: $0) }
            }
        }
        var reads = searchRound(round)
        // A node of an earlier version refuses the feedback field: the search is asked again
        // without it (and answered without feedback) rather than refused.
        if round.feedback != nil, reads.contains(where: { if case .refusal? = $0 { true } else { false } }) {
            round.feedback = nil
            reads = searchRound(round)
        }
        var firstStage: [(shard: Int, candidates: [FirstStageCandidate])] = []
        for (shard, read) in reads.enumerated() where !missing.contains(shard) {
            switch read {
            case .value(let part):
                merge.absorb(part.merge)
                if let list = part.firstStage { firstStage.append((shard, list)) }
            case .refusal(let refusal): return refusal
            case nil: missing.insert(shard)
            }
        }
        let facetParts = merge.facets
        if !firstStage.isEmpty, let refined = feedback(search, statistics: statistics, firstStage: firstStage, map: map.without(missing), keep: keep) {
            merge = refined
            count(\.feedbackSearches)
        }
        guard missing.count < map.count else {
            count(\.failed)
            throw APIError(503, "no-shards", "no shard answered in time; try again")
        }
        count(\.searches)
        if !missing.isEmpty { count(\.partial) }
        let page = merge.page(offset: search.offset, limit: search.limit, sort: search.sort)
        var response = SearchResponse(query: search.text, hits: page.results.map(\.hit), matchedAnyWord: page.matchedAnyWord,
                                      corrections: merge.corrections, total: merge.total, totalIsExact: merge.totalIsExact && missing.isEmpty,
                                      offset: search.offset, processingTimeMs: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
        if !search.facets.isEmpty {
            var facets = FacetCounts.merged(facetParts)
            facets.exact = facets.exact && missing.isEmpty
            response.facets = facets
        }
        // The answer of one index (the same encoder), and which shards it lacks.
        var object = response.json(showingRecords: false).objectValue ?? JSONObject()
        object.append("partial", .bool(!missing.isEmpty))
        object.append("missingShards", .array(missing.sorted().map { JSONValue($0) }))
        if !page.results.isEmpty { object.append("engagementToken", .string(tokens.issue(for: page.results.map(\.key), now: search.now))) }
        return .json(.object(object))
    }

    /// Sends one round to every shard of `map`, each answer parsed and `read` (its shard, its
    /// JSON) as it arrives, within the round's byte budget; a shard's refusal of the query is
    /// kept (``refusal(_:)``), and nil stands for a shard that is missing.
    func post<Value: Sendable>(
        _ path: String, _ bodies: [JSONObject], _ map: ShardMap, read: @escaping @Sendable (Int, JSONValue) -> Value?
    ) -> [ShardRead<Value>?] {
        fanOut.post(
            path, bodies: bodies.map { JSONWriter.bytes(.object($0)) }, map: map, hedgeAfter: configuration.hedgeAfter, timeout: configuration.timeout,
            budget: configuration.maximumSearchBytes
        ) { shard, answer -> ShardRead<Value>? in
            guard answer.status == 200 else { return Self.refusal(answer).map(ShardRead.refusal) }
            return (try? JSONParser.parse(bytes: answer.body)).flatMap { read(shard, $0) }.map(ShardRead.value)
        }
    }

    func count(_ counter: WritableKeyPath<Counters, Int>) {
        counters.withLock { $0[keyPath: counter] += 1 }
    }

    /// A shard's refusal of the query (a 4xx every replica would give: the query itself is
    /// at fault), made again from its code and message rather than passed on as it came: a
    /// code of at most 64 lower-case letters and hyphens, a message of at most 1,024
    /// bytes. Nil — the shard counts as missing — for any other status or body.
    static func refusal(_ answer: FanOut.Answer) -> HTTPServerResponse? {
        guard (400...499).contains(answer.status), answer.status != 401, answer.status != 403,
            let json = try? JSONParser.parse(bytes: answer.body), let error = json["error"],
            let code = error["code"]?.stringValue, (1...64).contains(code.utf8.count),
            code.utf8.allSatisfy({ $0 == 0x2D || (0x61...0x7A).contains($0) }),
            let message = error["message"]?.stringValue
        else { return nil }
        return APIError(answer.status, code, String(message.utf8.prefix(1024)) ?? code).response
    }
}

/// A shard's search answer as read: its results, and its first answer when it reports one.
struct ShardAnswer: Sendable {
    var merge: ResultMerge
    var firstStage: [FirstStageCandidate]?
}

/// A shard's answer as read: what its reader made of it, or its refusal of the query.
enum ShardRead<Value: Sendable>: Sendable {
    case value(Value)
    /// The shard refused the query (``SearchRouter/refusal(_:)``): the search's answer.
    case refusal(HTTPServerResponse)
}

extension ShardMap {
    /// The same map with `shards` left without replicas (not asked).
    func without(_ shards: Set<Int>) -> ShardMap {
        guard !shards.isEmpty else { return self }
        return ShardMap(count: count, replicas: replicas.indices.map { shards.contains($0) ? [] : replicas[$0] })
    }
}
