import Foundation
import HTTPServer
import Items
import JSON
import SearchIndex
import ServiceAPI

/// What a router asks of each shard (`serve --router`): the statistics round
/// (`POST /v1/shard/statistics`, what the query reads from this node's part of the index)
/// and the search itself ranked with the whole index's statistics (`POST /v1/shard/search`).
/// Neither is cached: the router's answers are.
extension SearchService {
    func shardStatistics(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        try checkRouter(request)
        let reader = try body(request, known: ShardSearchBody.statisticsFields)
        let search = try ShardSearchBody.request(from: reader, now: configuration.clock()).search
        let words = try reader.object["words"].map(ShardFeedback.words) ?? []
        try checkCaughtUp()
        return .json(try readers.withReader { try $0.statistics(for: search, words: words) }.json)
    }

    /// A long request's feedback round: how this shard reads its part of the whole index's
    /// best documents (``RelevanceFeedback/Reading``), ranked with the whole's statistics.
    func shardFeedback(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        try checkRouter(request)
        let reader = try body(request, known: ShardSearchBody.feedbackFields)
        let (search, round) = try ShardSearchBody.request(from: reader, now: configuration.clock())
        guard let statistics = round?.statistics else { throw APIError.invalidQuery("statistics is required") }
        guard let count = try reader.integer("count", in: 1...RelevanceFeedback.documents) else { throw APIError.invalidQuery("count is required") }
        try checkCaughtUp()
        let read = try readers.withReader { try $0.feedbackReadings(for: search, statistics: statistics, count: count) }
        return .json(ShardFeedback.json(readings: read.readings, excluded: read.excluded))
    }

    /// The answer of `GET /v1/search` for this shard's items — every first-stage candidate the
    /// router's page needs, in first-stage order (``ShardRound/firstStageOrder``) — with
    /// each result's final score and relevance in full (`scores`, `relevance`: the router
    /// orders every shard's candidates by them as one index would, and a rounded number would
    /// tie) and its owner (`owners`: the order key and the router's engagement token name
    /// items by owner and id).
    func shardSearch(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        try checkRouter(request)
        let (search, asked) = try ShardSearchBody.request(from: try body(request, known: ShardSearchBody.searchFields), now: configuration.clock())
        guard var round = asked else { throw APIError.invalidQuery("statistics is required") }
        round.firstStageOrder = true
        try checkCaughtUp()
        let answer = try readers.withReader { try $0.answer(search, round: round) }
        let results = answer.response
        var object = results.json(showingRecords: false).objectValue ?? JSONObject()
        object.append("scores", .array(results.hits.map { JSONValue($0.score) }))
        object.append("relevance", .array(results.hits.map { JSONValue($0.relevance) }))
        object.append("owners", .array(results.hits.map { .string($0.item.key.storedOwner) }))
        if let firstStage = answer.firstStage { object.append("firstStage", ShardFeedback.json(firstStage)) }
        return .json(.object(object))
    }

    /// The router credential signs this request's body too, and is used for the first time
    /// (its time and head were checked before the body was read).
    private func checkRouter(_ request: HTTPServerRequest) throws {
        let value = request.header(RouterCredential.header)
        guard let node = advertisedAddress, router.acceptsBody(value, method: request.method, path: request.path, body: request.body, node: node),
            let presented = RouterCredential.Presented(value), replays.first(presented.body, now: Date().timeIntervalSince1970)
        else { throw APIError.forbidden("the router credential does not sign this request, or was used before") }
    }
}
