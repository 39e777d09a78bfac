import APIModel
import Foundation
import ItemModel
import JSON
import SearchModel
import TextUtilities

/// The shared index of a running `searchlight serve`, as an app or its back end sees it:
/// CoreSpotlight's `CSSearchableIndex` over HTTP. Pushes, deletions and batches act on the
/// key owner's own items; searches see everyone's. Every call is `async`, retried on 429
/// and 503 as ``retry`` says, and cancelled with its task.
///
/// ```swift
/// let index = SearchableIndex(server: URL(string: "http://127.0.0.1:7700")!, key: "sl_…")
/// try await index.indexSearchableItems([SearchableItem(uniqueIdentifier: "recipe-1", title: "Lemon tart")])
/// let results = try await index.search(SearchRequest("lemon tart"))
/// ```
public struct SearchableIndex: Sendable {
    /// The server's base URL (`http://host:port`).
    public let server: URL
    /// An API key (`searchlight keys create`), sent as `Authorization: Bearer …`; writes
    /// need one, searches do not.
    public var key: String?
    public var retry: RetryPolicy
    /// Seconds one try may take.
    public var timeout: TimeInterval
    public var transport: any SearchlightTransport

    public init(server: URL, key: String? = nil, retry: RetryPolicy = RetryPolicy(), timeout: TimeInterval = 30,
                transport: any SearchlightTransport = URLSessionTransport()) {
        self.server = server
        self.key = key
        self.retry = retry
        self.timeout = timeout
        self.transport = transport
    }

    // MARK: items

    /// Adds or replaces items (`POST /v1/items`): an item with the same identifier is
    /// replaced whole. Returns how many were written.
    @discardableResult
    public func indexSearchableItems(_ items: [SearchableItem]) async throws(SearchlightError) -> Int {
        let answer = try await call("POST", APIPath.items, body: .object(JSONObject([("items", .array(items.map(\.pushedJSON)))])))
        return try Self.count(answer, "upserted")
    }

    /// Deletes the caller's items with these identifiers; returns how many were deleted.
    @discardableResult
    public func deleteSearchableItems(withIdentifiers identifiers: [String]) async throws(SearchlightError) -> Int {
        guard !identifiers.isEmpty else { return 0 }
        let answer = try await call("DELETE", APIPath.items, body: .object(JSONObject([("ids", .array(identifiers.map(JSONValue.string)))])))
        return try Self.count(answer, "deleted")
    }

    /// Deletes the caller's items in these domains and below them (`a.b` deletes `a.b.c`).
    @discardableResult
    public func deleteSearchableItems(withDomainIdentifiers domains: [String]) async throws(SearchlightError) -> Int {
        var deleted = 0
        for domain in domains { deleted += try Self.count(try await call("DELETE", APIPath.domain(domain), body: nil), "deleted") }
        return deleted
    }

    /// Deletes every item of the caller.
    @discardableResult
    public func deleteAllSearchableItems() async throws(SearchlightError) -> Int {
        try Self.count(try await call("DELETE", APIPath.items, body: nil), "deleted")
    }

    // MARK: batches

    /// A batch of the stream `name`: items and deletions gathered, then committed at once by
    /// ``endBatch(_:clientState:)`` only if the stream's stored state is still the one the
    /// batch began with — CoreSpotlight's `beginIndexBatch` and `endIndexBatch(withClientState:)`.
    public func beginBatch(named name: String, expectedClientState: String?) -> Batch {
        Batch(name: name, expectedClientState: expectedClientState)
    }

    /// The client state the stream `name` last committed; nil before its first batch.
    public func fetchLastClientState(batch name: String) async throws(SearchlightError) -> String? {
        try await call("GET", APIPath.batch(name), body: nil)["clientState"]?.stringValue
    }

    /// Commits `batch`, whose stream's state becomes `clientState`; a stored state other
    /// than the batch's expected one is ``SearchlightError/Code/conflict`` and nothing is written.
    public func endBatch(_ batch: Batch, clientState: String) async throws(SearchlightError) {
        _ = try await call("POST", APIPath.batch(batch.name), body: .object(JSONObject([
            ("items", .array(batch.items.map(\.pushedJSON))), ("deleteIdentifiers", .array(batch.deletions.map(JSONValue.string))),
            ("expectedClientState", batch.expectedClientState.map(JSONValue.string) ?? .null), ("clientState", .string(clientState)),
        ])))
    }

    // MARK: searching

    /// Searches the whole index with every parameter `/v1/search` takes (filters, facets,
    /// `near` and `sort`, paging, snippets); the answer with its engagement token.
    public func search(_ request: SearchRequest) async throws(SearchlightError) -> SearchResults {
        let answer = try await call("GET", APIPath.search + "?" + SearchParameters.query(for: request), body: nil)
        do {
            return SearchResults(response: try SearchResponse(json: answer), engagementToken: answer["engagementToken"]?.stringValue)
        } catch {
            throw SearchlightError(.notUnderstood, "\(server) did not answer with search results: \(error.message)")
        }
    }

    /// Reports what people saw and tapped, the ranking's engagement signal. With a key: for
    /// the owner's own items; without one, `results`' engagement token says which items.
    public func reportEngagement(_ events: [EngagementEvent], query: String, results: SearchResults? = nil) async throws(SearchlightError) {
        var fields: [(String, JSONValue)] = [("query", .string(query)), ("events", .array(events.map(\.json)))]
        if key == nil {
            guard let token = results?.engagementToken else {
                throw SearchlightError(.badRequest, "without a key, engagement needs the search results' engagement token", field: "token")
            }
            fields.append(("token", .string(token)))
        }
        _ = try await call("POST", APIPath.engagement, body: .object(JSONObject(fields)))
    }

    // MARK: activities and records

    /// Reports an activity eligible for public indexing (NSUserActivity's
    /// `isEligibleForPublicIndexing`): it becomes searchable once enough distinct devices
    /// report it.
    public func publish(_ activity: PublicActivity) async throws(SearchlightError) {
        _ = try await call("POST", APIPath.activities, body: activity.json)
    }

    /// The app record one of the caller's ingested items came from.
    public func source(ofItem identifier: String) async throws(SearchlightError) -> ItemSource {
        let answer = try await call("GET", APIPath.itemSource(identifier), body: nil)
        guard let reference = answer["source"].flatMap(RecordReference.init(json:)) else {
            throw SearchlightError(.notUnderstood, "\(server) did not answer with an item's source")
        }
        return ItemSource(identifier: identifier, reference: reference, record: answer["record"])
    }

    /// Where one of the caller's own items ranks for `query`, and why (``Findability``):
    /// the words it matched in which fields and forms, the score's parts, the results above
    /// it, what keeps it down. ``SearchlightError/Code/notFound`` for an item that is not the caller's.
    public func findability(ofItem identifier: String, query: String, platform: AppTarget.Platform = .ios) async throws(SearchlightError) -> Findability {
        let path = APIPath.itemFindability(identifier) + "?q=" + Unreserved.encodingOthers(query) + "&platform=" + platform.rawValue
        let answer = try await call("GET", path, body: nil)
        guard let report = Findability(json: answer) else { throw SearchlightError(.notUnderstood, "\(server) did not answer with a findability report") }
        return report
    }

    private static func count(_ answer: JSONValue, _ name: String) throws(SearchlightError) -> Int {
        guard let count = answer[name]?.intValue else { throw SearchlightError(.notUnderstood, "the answer has no \(name) count") }
        return count
    }
}
