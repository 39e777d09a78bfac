import TextUtilities

/// The API's fixed paths, spelled once for the service that answers them, the router that
/// answers some and asks shards for others, and the client.
public enum APIPath {
    public static let health = "/healthz"
    public static let metrics = "/metrics"
    public static let openAPI = "/v1/openapi.json"
    public static let search = "/v1/search"
    /// A router's statistics round: what a query reads from one shard.
    public static let shardStatistics = "/v1/shard/statistics"
    /// A router's search round: one shard's candidates ranked with the whole index's statistics.
    public static let shardSearch = "/v1/shard/search"
    /// A router's feedback round: how one shard reads its documents of a long request's first answer.
    public static let shardFeedback = "/v1/shard/feedback"
    public static let indexNow = "/indexnow"

    public static let items = "/v1/items"
    public static let activities = "/v1/activities"
    public static let engagement = "/v1/engagement"

    /// `/v1/items/{id}/source` with the id as one path segment.
    public static func itemSource(_ id: String) -> String { "/v1/items/" + Unreserved.encodingOthers(id) + "/source" }

    /// `/v1/items/{id}/findability` with the id as one path segment.
    public static func itemFindability(_ id: String) -> String { "/v1/items/" + Unreserved.encodingOthers(id) + "/findability" }

    /// `/v1/domains/{domainIdentifier}` with the domain as one path segment.
    public static func domain(_ domainIdentifier: String) -> String { "/v1/domains/" + Unreserved.encodingOthers(domainIdentifier) }

    /// `/v1/batches/{name}` with the name as one path segment.
    public static func batch(_ name: String) -> String { "/v1/batches/" + Unreserved.encodingOthers(name) }
}
