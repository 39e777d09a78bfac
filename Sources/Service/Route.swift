import Foundation
import HTTPServer
import ServiceAPI
import TextUtilities

/// The API's routes: a request's method and path segments matched to a handler.
enum Route {
    case health, metrics, openAPI, search
    case pushItems, deleteItems
    case itemSource(String), itemFindability(String)
    case deleteDomain(String)
    case readBatch(String), commitBatch(String)
    case reportActivity, recordEngagement
    case shardStatistics, shardSearch, shardFeedback
    case indexNow

    /// Every path the API answers, with its methods (the OpenAPI document lists the same).
    static let table: [(path: String, methods: [String])] = [
        (APIPath.health, ["GET"]), (APIPath.metrics, ["GET"]), (APIPath.openAPI, ["GET"]), (APIPath.search, ["GET"]),
        ("/v1/items", ["POST", "DELETE"]), ("/v1/items/{id}/source", ["GET"]), ("/v1/domains/{domainIdentifier}", ["DELETE"]), ("/v1/batches/{name}", ["GET", "POST"]),
        ("/v1/activities", ["POST"]), ("/v1/engagement", ["POST"]), (APIPath.shardStatistics, ["POST"]), (APIPath.shardSearch, ["POST"]), (APIPath.shardFeedback, ["POST"]),
        (APIPath.indexNow, ["GET", "POST"]),
    ]

    init(method: String, segments: [String]) throws(APIError) {
        func only(_ allowed: [String], _ route: Route) throws(APIError) -> Route {
            guard allowed.contains(method) || (method == "HEAD" && allowed.contains("GET")) else { throw .methodNotAllowed(allowed) }
            return route
        }
        func decoded(_ segment: String) throws(APIError) -> String {
            guard let text = PercentDecoding.decodeStrictly(segment), !text.isEmpty, text.utf8.count <= 256 else {
                throw .badRequest("the path segment '\(segment.prefix(300))' is empty, too long or badly percent-encoded")
            }
            // A name that is stored (a batch's) or compared with stored ones may not hold
            // control characters: PostgreSQL text cannot hold NUL at all.
            guard !Self.hasControlCharacters(text) else { throw .badRequest("the path segment '\(segment.prefix(300))' holds control characters") }
            return text
        }
        switch segments {
        case ["healthz"]: self = try only(["GET"], .health)
        case ["metrics"]: self = try only(["GET"], .metrics)
        case ["v1", "openapi.json"]: self = try only(["GET"], .openAPI)
        case ["v1", "search"]: self = try only(["GET"], .search)
        case ["v1", "items"]:
            switch method {
            case "POST": self = .pushItems
            case "DELETE": self = .deleteItems
            default: throw .methodNotAllowed(["POST", "DELETE"])
            }
        case ["v1", "activities"]: self = try only(["POST"], .reportActivity)
        case ["v1", "engagement"]: self = try only(["POST"], .recordEngagement)
        case ["v1", "shard", "statistics"]: self = try only(["POST"], .shardStatistics)
        case ["v1", "shard", "search"]: self = try only(["POST"], .shardSearch)
        case ["v1", "shard", "feedback"]: self = try only(["POST"], .shardFeedback)
        // The protocol's own path, as search engines serve it.
        case ["indexnow"]: self = try only(["GET", "POST"], .indexNow)
        default:
            if segments.count == 3, segments[0] == "v1", segments[1] == "domains" {
                self = try only(["DELETE"], .deleteDomain(try decoded(segments[2])))
            } else if segments.count == 4, segments[0] == "v1", segments[1] == "items", segments[3] == "source" {
                self = try only(["GET"], .itemSource(try decoded(segments[2])))
            } else if segments.count == 4, segments[0] == "v1", segments[1] == "items", segments[3] == "findability" {
                self = try only(["GET"], .itemFindability(try decoded(segments[2])))
            } else if segments.count == 3, segments[0] == "v1", segments[1] == "batches" {
                let name = try decoded(segments[2])
                switch method {
                case "GET", "HEAD": self = .readBatch(name)
                case "POST": self = .commitBatch(name)
                default: throw .methodNotAllowed(["GET", "POST"])
                }
            } else {
                throw .notFound("no such endpoint: \(segments.isEmpty ? "/" : "/" + segments.joined(separator: "/")); see /v1/openapi.json")
            }
        }
    }

    /// True when `text` holds a control character (C0, NUL among them, DEL or C1), as no
    /// item's text field may.
    static func hasControlCharacters(_ text: String) -> Bool { TerminalText.containsC0DELOrC1(text, allowingLineBreaks: false) }

    /// Writes, and reading a batch's state, need a key.
    var needsKey: Bool {
        switch self {
        case .health, .metrics, .openAPI, .search, .shardStatistics, .shardSearch, .shardFeedback, .indexNow: false
        case .pushItems, .deleteItems, .deleteDomain, .readBatch, .commitBatch, .reportActivity, .recordEngagement, .itemSource, .itemFindability: true
        }
    }

    /// What a router asks of a shard (``RouterCredential``).
    var isShardRoute: Bool {
        switch self {
        case .shardStatistics, .shardSearch, .shardFeedback: true
        default: false
        }
    }

    /// Requests that carry a JSON body (a DELETE of items may too, for long id lists).
    var takesBody: Bool {
        switch self {
        case .pushItems, .deleteItems, .commitBatch, .reportActivity, .recordEngagement, .shardStatistics, .shardSearch, .shardFeedback, .indexNow: true
        case .health, .metrics, .openAPI, .search, .deleteDomain, .readBatch, .itemSource, .itemFindability: false
        }
    }

    /// The route's name in metrics: the path with its variables left as names.
    var label: String {
        switch self {
        case .health: "/healthz"
        case .metrics: "/metrics"
        case .openAPI: "/v1/openapi.json"
        case .search: "/v1/search"
        case .pushItems, .deleteItems: "/v1/items"
        case .itemSource: "/v1/items/{id}/source"
        case .itemFindability: "/v1/items/{id}/findability"
        case .deleteDomain: "/v1/domains/{domainIdentifier}"
        case .readBatch, .commitBatch: "/v1/batches/{name}"
        case .reportActivity: "/v1/activities"
        case .recordEngagement: "/v1/engagement"
        case .shardStatistics: APIPath.shardStatistics
        case .shardSearch: APIPath.shardSearch
        case .shardFeedback: APIPath.shardFeedback
        case .indexNow: "/indexnow"
        }
    }

    func run(_ request: HTTPServerRequest, _ service: SearchService) throws -> HTTPServerResponse {
        switch self {
        case .health: try service.health()
        case .metrics: try service.metricsText()
        case .openAPI: try OpenAPIDocument.response()
        case .search: try service.search(request)
        case .pushItems: try service.pushItems(request)
        case .deleteItems: try service.deleteItems(request)
        case .deleteDomain(let domain): try service.deleteDomain(request, domain)
        case .itemSource(let id): try service.itemSource(request, id)
        case .itemFindability(let id): try service.itemFindability(request, id)
        case .readBatch(let name): try service.readBatch(request, name)
        case .commitBatch(let name): try service.commitBatch(request, name)
        case .reportActivity: try service.reportActivity(request)
        case .recordEngagement: try service.recordEngagement(request)
        case .shardStatistics: try service.shardStatistics(request)
        case .shardSearch: try service.shardSearch(request)
        case .shardFeedback: try service.shardFeedback(request)
        case .indexNow: try service.indexNow(request)
        }
    }
}
