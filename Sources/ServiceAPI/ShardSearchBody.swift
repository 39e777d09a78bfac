import FoundationEssentials
import Items
import JSON
import SearchModel

/// The body of the router's rounds (`POST /v1/shard/statistics`, `/v1/shard/search` and
/// `/v1/shard/feedback`): the search as the router read it, written by the router and read
/// by every node, so a shard ranks exactly the search one index would. A long request's
/// feedback rounds add `feedback` (search), `words` (statistics) and `count` (feedback).
public enum ShardSearchBody {
    public static let fields: Set<String> = ["q", "limit", "offset", "platform", "installed", "snippets", "typing", "statistics", "now", "filter",
                                             "facets", "sort"]
    /// The fields each round's body may hold.
    public static let searchFields = fields.union(["feedback"])
    public static let statisticsFields = fields.union(["words"])
    public static let feedbackFields = fields.union(["count"])

    /// The body for `search`: every result up to the page's end from offset 0 (the router
    /// pages the merge), at the router's instant; the round's statistics and feedback for the
    /// search and feedback rounds (its order is the shard search's own).
    public static func json(for search: SearchRequest, round: ShardRound? = nil) -> JSONObject {
        var fields: [(String, JSONValue)] = [
            ("q", .string(search.text)), ("limit", JSONValue(search.offset + search.limit)), ("offset", 0),
            ("platform", .string(search.platform.rawValue)), ("installed", .array(search.installed.sorted().map(JSONValue.string))),
            ("snippets", .bool(search.snippets)), ("typing", .bool(search.typing)), ("now", JSONValue(search.now.timeIntervalSince1970)),
        ]
        if !search.filter.isEmpty { fields.append(("filter", search.filter.json)) }
        if !search.facets.isEmpty { fields.append(("facets", .array(search.facets.map(\.rawValue).sorted().map(JSONValue.string)))) }
        if search.sort != .relevance { fields.append(("sort", .string(search.sort.rawValue))) }
        if let statistics = round?.statistics { fields.append(("statistics", statistics.json)) }
        if let feedback = round?.feedback { fields.append(("feedback", ShardFeedback.json(feedback))) }
        return JSONObject(fields)
    }

    /// The search a body asks for, with the round it carries (its statistics and feedback; nil
    /// in the statistics round, which has none). `now` is used only when the body names no instant.
    public static func request(from body: FieldReader, now: Date) throws -> (search: SearchRequest, round: ShardRound?) {
        let text = try body.requiredString("q", maximumBytes: 4 * SearchRequest.Limits.queryCharacters, multiline: true)
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
        search.now = try body.number("now", in: 0...1e11).map(Date.init(timeIntervalSince1970:)) ?? now
        try search.validate()
        guard let statistics = body.object["statistics"] else { return (search, nil) }
        return (search, ShardRound(statistics: try CorpusStatistics(json: statistics), feedback: try body.object["feedback"].map(ShardFeedback.feedback)))
    }
}
