import Foundation
import HTTPServer
import Items
import JSON
import SearchIndex

/// What a router asks of each shard (`serve --router`): the statistics round
/// (`POST /v1/shard/statistics`, what the query reads from this node's part of the index)
/// and the search itself ranked with the whole index's statistics (`POST /v1/shard/search`).
/// Neither is cached: the router's answers are.
extension SearchService {
    static let shardSearchFields: Set<String> = ["q", "limit", "offset", "platform", "installed", "snippets", "typing", "statistics", "now", "filter", "facets", "sort"]

    func shardStatistics(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        try checkRouter(request)
        let search = try shardSearchRequest(try body(request, known: Self.shardSearchFields))
        try checkCaughtUp()
        return .json(try readers.withReader { try $0.statistics(for: search) }.json)
    }

    /// The answer of `GET /v1/search` for this shard's items — every first-stage candidate the
    /// router's page needs, in first-stage order (``SearchRequest/firstStageOrder``) — with
    /// each result's final score and relevance in full (`scores`, `relevance`: the router
    /// orders every shard's candidates by them as one index would, and a rounded number would
    /// tie) and its owner (`owners`: the order key and the router's engagement token name
    /// items by owner and id).
    func shardSearch(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        try checkRouter(request)
        let body = try body(request, known: Self.shardSearchFields)
        var search = try shardSearchRequest(body)
        guard let statistics = body.object["statistics"] else { throw APIError.invalidQuery("statistics is required") }
        search.statistics = try CorpusStatistics(json: statistics)
        search.firstStageOrder = true
        try checkCaughtUp()
        let results = try readers.withReader { try $0.search(search) }
        var object = results.json(showingRecords: false).objectValue ?? JSONObject()
        object.append("scores", .array(results.hits.map { JSONValue($0.score) }))
        object.append("relevance", .array(results.hits.map { JSONValue($0.relevance) }))
        object.append("owners", .array(results.hits.map { .string($0.item.key.storedOwner) }))
        return .json(.object(object))
    }

    /// The router credential signs this request's body too, and is used for the first time
    /// (its time and head were checked before the body was read).
    private func checkRouter(_ request: HTTPServerRequest) throws {
        let value = request.header(RouterCredential.header)
        guard router.acceptsBody(value, method: request.method, path: request.path, body: request.body),
            let presented = RouterCredential.Presented(value), replays.first(presented.body, now: Date().timeIntervalSince1970)
        else { throw APIError.forbidden("the router credential does not sign this request, or was used before") }
    }

    private func shardSearchRequest(_ body: FieldReader) throws -> SearchRequest {
        let text = try body.requiredString("q", maximumBytes: 4 * SearchQuery.maximumLength, multiline: true)
        let platformName = try body.string("platform") ?? "ios"
        guard let platform = AppTarget.Platform(rawValue: platformName) else { throw APIError.invalidQuery("platform must be ios or android") }
        let installed = Set(try body.strings("installed", maximumCount: SearchRequest.Limits.installedApps, maximumBytes: SearchRequest.Limits.installedAppBytes))
        var search = SearchRequest(text, limit: try body.integer("limit", in: 1...SearchRequest.Limits.results) ?? 10, platform: platform,
                                   installed: installed, snippets: try body.bool("snippets") ?? false)
        search.offset = try body.integer("offset", in: 0...SearchRequest.Limits.results) ?? 0
        search.typing = try body.bool("typing") ?? false
        if let filter = body.object["filter"] { search.filter = try SearchFilter(json: filter) }
        search.facets = try Facet.parse(try body.strings("facets", maximumCount: Facet.allCases.count, maximumBytes: 32).joined(separator: ","))
        search.sort = try SearchSort(parameter: try body.string("sort", maximumBytes: 16))
        // Every shard ranks at the router's instant: freshness moves with the clock, and
        // shards asked a few milliseconds apart would otherwise break ties by who was asked last.
        search.now = try body.number("now", in: 0...1e11).map(Date.init(timeIntervalSince1970:)) ?? configuration.clock()
        try search.validate()
        return search
    }
}
