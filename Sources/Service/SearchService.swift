import Foundation
import HTTPServer
import HTTPTypes
import JSON
import SearchIndex
import Synchronization
import WebURL

/// The shared index as an HTTP API: search for everyone, and for API-key holders the
/// CoreSpotlight push model (items, deletions, batches with client state), public
/// activities (the NSUserActivity model) and engagement. `handle` is the whole API; it
/// runs on libmicrohttpd's threads, several at once.
///
/// Tenants do not trust each other: every write is checked against the key's owner and
/// domain (``Ownership``), including writes that touch items nobody pushed (a crawl's);
/// every field is range-checked and length-capped (``SearchableItem/Limits``); a write's
/// key and content type are checked from its head, before any byte of its body is read
/// (``admit(_:)``).
///
/// Reads go to a pool of connections and see the last committed state (SQLite WAL),
/// through a result cache whose staleness bounds ``SearchCache`` states;
/// writes go through one connection, so a crawl or another writer in another process
/// waits on SQLite's lock rather than failing.
public final class SearchService: Sendable {
    public struct Configuration: Sendable {
        public var indexPath: String
        /// The service's own file (keys, activities): `service.sqlite` next to the index.
        public var storePath: String
        /// Distinct devices, on as many distinct networks, that must report an activity
        /// before it is searchable.
        public var activityThreshold = 3
        public var maximumItemsPerRequest = 1000
        /// The largest request body read; larger ones get 413.
        public var maximumBodyBytes = 8 << 20
        /// The most results one search may ask for.
        public var maximumSearchLimit = 100
        /// Read connections; about the number of server threads.
        public var readers = 4
        /// How long a search answer may be reused before it is recomputed; 0 turns the
        /// result cache off. See ``SearchCache`` for the rules.
        public var cacheLifetime: TimeInterval = 60
        /// How soon another process's commits (a crawl's) show in cached answers.
        public var cacheRefreshInterval: TimeInterval = 5
        /// Bytes of cached answers kept; past that the least recently stored go.
        public var cacheBytes = 64 << 20
        /// With a ``SearchReplica``: searches are refused (503) while the copy is further
        /// behind its change log than this.
        public var maximumLag: TimeInterval = 5
        public var clock: @Sendable () -> Date = { Date() }
        /// Reads the record behind an ingested item when its source database is on this
        /// machine (`serve` sets it from the data folder's ingest state); nil otherwise.
        public var recordResolver: (@Sendable (RecordReference) throws -> JSONValue?)?

        public init(indexPath: String) {
            self.indexPath = indexPath
            self.storePath = (indexPath as NSString).deletingLastPathComponent.isEmpty
                ? "service.sqlite" : ((indexPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("service.sqlite")
        }
    }

    public let configuration: Configuration
    /// Every path the API answers, with its methods.
    public static var routes: [(path: String, methods: [String])] { Route.table }
    private let readers: ReaderPool
    /// Where writes go: the index itself, or the shared store in multi-machine mode.
    private let items: ItemStore
    private let keys: KeyStore
    private let replica: SearchReplica?
    private let deviceSalt: [UInt8]
    private let metrics = ServiceMetrics()
    private let cache: SearchCache?

    /// The embedded service: writes to the index at `indexPath`, keys in `service.sqlite`.
    public convenience init(configuration: Configuration) throws {
        try self.init(configuration: configuration, items: try SearchIndex(path: configuration.indexPath),
                      keys: try ServiceStore(path: configuration.storePath, legacyIndexPath: configuration.indexPath), replica: nil)
    }

    /// A service whose searches read the index at `indexPath` and whose writes and keys go
    /// to the given stores; with a `replica`, that index is a copy it keeps up to date.
    public init(configuration: Configuration, items: ItemStore, keys: KeyStore, replica: SearchReplica?) throws {
        self.configuration = configuration
        self.items = items
        self.keys = keys
        self.replica = replica
        let readers = try ReaderPool(indexPath: configuration.indexPath, count: configuration.readers)
        self.readers = readers
        deviceSalt = try keys.deviceSalt()
        if configuration.cacheLifetime > 0 {
            cache = try SearchCache(indexPath: configuration.indexPath, lifetime: configuration.cacheLifetime,
                                    refreshInterval: configuration.cacheRefreshInterval, capacityBytes: configuration.cacheBytes,
                                    clock: configuration.clock)
            { request in try readers.withReader { try $0.search(request) } }
        } else {
            cache = nil
        }
    }

    /// Starts an HTTP server for the API: ``admit(_:)`` on each request's head, then
    /// ``handle(_:)`` on the whole request; the server's body limit is the service's.
    public func serve(_ configuration: HTTPServer.Configuration) throws -> HTTPServer {
        var configuration = configuration
        configuration.maximumBodyBytes = self.configuration.maximumBodyBytes
        configuration.refusal = { status, code, message in APIError(status, code, message).response }
        return try HTTPServer(configuration: configuration, admission: { [self] in admit($0) }, handler: { [self] in handle($0) })
    }

    /// Answers a write at once, before its body is read, when its key or its content type
    /// is wrong: an anonymous client cannot make the server buffer bodies.
    public func admit(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        let segments = Self.segments(request.path)
        guard let route = try? Route(method: request.method, segments: segments), route.needsKey else { return nil }
        do {
            // The search page reports engagement without a key (checked against the results it was shown).
            if case .recordEngagement = route, request.header("Authorization") == nil {
                try checkContentType(request)
                return nil
            }
            _ = try authenticate(request)
            if route.takesBody { try checkContentType(request) }
            return nil
        } catch {
            let response = (error as? APIError ?? APIError(500, "internal", "\(error)")).response
            metrics.record(route: route.label, status: response.status, seconds: 0)
            return response
        }
    }

    /// Handles one request: routes it, turns every failure into a JSON error, records
    /// the metrics.
    public func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let (route, response) = respond(to: request)
        metrics.record(route: route, status: response.status,
                       seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000_000)
        return response
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    private func respond(to request: HTTPServerRequest) -> (route: String, response: HTTPServerResponse) {
        if let page = SearchPage.response(to: request) { return (request.path, page) }
        let route: Route
        do {
            route = try Route(method: request.method, segments: Self.segments(request.path))
        } catch {
            return ("unknown", error.response)
        }
        do {
            return (route.label, try route.run(request, self))
        } catch let error as APIError {
            return (route.label, error.response)
        } catch let error as SearchIndexError {
            return (route.label, APIError(error).response)
        } catch let error as FieldError {
            return (route.label, APIError(error).response)
        } catch {
            return (route.label, APIError(500, "internal", "\(error)").response)
        }
    }

    // MARK: reading


    func search(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        guard let query = request.queryValue("q") else { throw APIError.badRequest("q is required") }
        var limit = 10
        if let text = request.queryValue("limit") {
            guard let number = Int(text) else { throw APIError.badRequest("limit must be a whole number") }
            limit = number
        }
        let platformName = request.queryValue("platform") ?? "ios"
        guard let platform = AppTarget.Platform(rawValue: platformName) else { throw APIError.badRequest("platform must be ios or android") }
        let installed = Set(request.queryValues("installed").flatMap { $0.split(separator: ",") }.map(String.init))
        let snippets = ["1", "true"].contains(request.queryValue("snippets") ?? "")
        var search = SearchRequest(query, limit: limit, platform: platform, installed: installed, snippets: snippets)
        search.now = configuration.clock()
        try search.validate(maximumResults: configuration.maximumSearchLimit)
        if let replica {
            let lag = replica.lag ?? .infinity
            guard lag <= configuration.maximumLag else {
                throw APIError(503, "behind", lag.isFinite
                    ? "this node's copy of the index is \(Int(lag)) s behind the shared store (at most \(Int(configuration.maximumLag)) s allowed); try another node"
                    : "this node's copy of the index has not caught up with the shared store yet; try another node")
            }
        }
        guard let cache else { return .json(try readers.withReader { try $0.search(search) }.json) }
        return try cache.response(for: search)
    }

    func health() throws -> HTTPServerResponse {
        _ = try readers.withReader { try $0.count() }
        return .json(["status": "ok"])
    }

    func metricsText() throws -> HTTPServerResponse {
        let items = try readers.withReader { try $0.count() }
        let bytes = [configuration.indexPath, configuration.indexPath + "-wal"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        return .text(metrics.text(indexItems: items, indexBytes: bytes, cache: cache?.statistics), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    // MARK: writing

    /// Runs a write on the item store; then brings this node's copy up to date (when it is
    /// one) and empties the result cache, so that the writer's next search sees it.
    @discardableResult
    private func write<T>(_ body: (ItemStore) throws -> T) throws -> T {
        defer { cache?.invalidate() }
        let result = try body(items)
        try replica?.catchUp()
        return result
    }

    /// The key the request carries, or 401.
    func authenticate(_ request: HTTPServerRequest) throws -> APIKey {
        guard let header = request.header("Authorization"), header.utf8.count <= 256, header.lowercased().hasPrefix("bearer "),
            let key = try keys.authenticate(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        else { throw APIError.unauthorized }
        return key
    }

    /// A body must be declared JSON (RFC 9110 media type; UTF-8 if a charset is given).
    func checkContentType(_ request: HTTPServerRequest) throws {
        guard let declared = request.header("Content-Type") else {
            if request.body.isEmpty, request.header("Content-Length").map({ $0.trimmingCharacters(in: .whitespaces) == "0" }) ?? true {
                return
            }
            throw APIError(415, "unsupported-media-type", "send the body as Content-Type: application/json")
        }
        guard let type = MediaType(declared), type.isJSON else {
            throw APIError(415, "unsupported-media-type", "send application/json (UTF-8), not \(declared.prefix(100))")
        }
    }

    /// The request's JSON body as an object, with only `known` fields, each at most once.
    func body(_ request: HTTPServerRequest, known: Set<String>) throws -> FieldReader {
        if request.bodyTooLarge { throw APIError.tooLarge("the body is larger than \(configuration.maximumBodyBytes) bytes") }
        try checkContentType(request)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes: request.body)
        } catch {
            throw APIError.invalidJSON("the body is not valid JSON: \(error)")
        }
        let reader = try FieldReader(value: value, path: "body")
        try reader.rejectUnknown(known)
        try reader.rejectDuplicates()
        return reader
    }

    /// Reads `items` from a body, each one owned by the key and allowed for its domain.
    func items(_ body: FieldReader, key: APIKey) throws -> [SearchableItem] {
        let list = try body.array("items", maximumCount: configuration.maximumItemsPerRequest) ?? []
        let now = configuration.clock()
        var items: [SearchableItem] = []
        for (index, value) in list.enumerated() {
            let item = try SearchableItem(pushed: value, path: "items[\(index)]", owner: key.owner, now: now)
            guard Ownership.allows(item, forDomain: key.domain) else {
                throw APIError.forbidden("items[\(index)]: a key for \(key.domain) may only write items whose webURL is on \(key.domain) "
                    + "and whose domainIdentifier, if any, is under \(Ownership.reversedDomain(key.domain))")
            }
            items.append(item)
        }
        return items
    }

    func pushItems(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        let items = try items(try body(request, known: ["items"]), key: key)
        var batch = SearchIndex.Batch(upserts: items)
        batch.owner = key.owner
        let result = try write { try $0.commit(batch, now: configuration.clock()) }
        return .json(["upserted": JSONValue(result.upserted)])
    }

    /// Deletes by the ids in the query (`?id=…&id=…`) or in a JSON body (`{"ids": […]}`, for
    /// long lists); without either, every item of the caller.
    func deleteItems(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        var ids = request.queryValues("id")
        if !request.body.isEmpty || request.bodyTooLarge {
            let body = try body(request, known: ["ids"])
            ids += try body.strings("ids", maximumCount: configuration.maximumItemsPerRequest,
                                    maximumBytes: SearchableItem.Limits.identifierBytes)
        }
        guard !ids.isEmpty else {
            return .json(["deleted": JSONValue(try write { try $0.deleteAll(owner: key.owner) })])
        }
        guard ids.count <= configuration.maximumItemsPerRequest else {
            throw APIError.tooLarge("\(ids.count) ids; at most \(configuration.maximumItemsPerRequest) per request")
        }
        var batch = SearchIndex.Batch(deleteIdentifiers: ids)
        batch.owner = key.owner
        return .json(["deleted": JSONValue(try write { try $0.commit(batch, now: configuration.clock()) }.deleted)])
    }

    func deleteDomain(_ request: HTTPServerRequest, _ domainIdentifier: String) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        guard Ownership.allows(domainIdentifier: domainIdentifier, forDomain: key.domain) else {
            throw APIError.forbidden("a key for \(key.domain) may only delete domains under \(Ownership.reversedDomain(key.domain))")
        }
        var batch = SearchIndex.Batch(deleteDomains: [domainIdentifier])
        batch.owner = key.owner
        return .json(["deleted": JSONValue(try write { try $0.commit(batch, now: configuration.clock()) }.deleted)])
    }

    // MARK: sources

    /// The app record an ingested item came from, for the item's owner only: anyone else
    /// gets the same 404 as for an item that does not exist.
    func itemSource(_ request: HTTPServerRequest, _ id: String) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        guard let item = try items.item(identifier: id), item.owner == key.owner else { throw APIError.notFound("no item '\(id)' of yours") }
        guard let record = item.record else { throw APIError.notFound("item '\(id)' was not ingested from an app database") }
        var fields: [(String, JSONValue)] = [("id", .string(id)), ("source", record.json)]
        if let resolved = try configuration.recordResolver?(record) { fields.append(("record", resolved)) }
        return .json(.object(JSONObject(fields)))
    }

    // MARK: batches

    /// Each owner has its own batch names. Owner names have no `/` (``Ownership/isValidOwner(_:)``),
    /// so `owner/name` is unambiguous.
    private func batchName(_ name: String, key: APIKey) -> String { key.owner + "/" + name }

    func readBatch(_ request: HTTPServerRequest, _ name: String) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        let state = try items.clientState(batch: batchName(name, key: key))
        return .json(["name": .string(name), "clientState": state.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null])
    }

    func commitBatch(_ request: HTTPServerRequest, _ name: String) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        let body = try body(request, known: ["items", "deleteIdentifiers", "expectedClientState", "clientState"])
        guard body.contains("expectedClientState") else {
            throw APIError(400, "invalid-field", "body.expectedClientState: required (null when the batch has no state yet)")
        }
        let limit = SearchIndex.maximumClientStateBytes
        let expected = try body.string("expectedClientState", maximumBytes: limit)
        let state = try body.requiredString("clientState", maximumBytes: limit)
        let deletions = try body.strings("deleteIdentifiers", maximumCount: configuration.maximumItemsPerRequest,
                                         maximumBytes: SearchableItem.Limits.identifierBytes)
        var batch = SearchIndex.Batch(upserts: try items(body, key: key), deleteIdentifiers: deletions)
        guard batch.upserts.count + deletions.count <= configuration.maximumItemsPerRequest else {
            throw APIError.tooLarge("at most \(configuration.maximumItemsPerRequest) items and deletions per batch")
        }
        batch.owner = key.owner
        batch.clientStateName = batchName(name, key: key)
        batch.expectedClientState = .some(expected.map { Array($0.utf8) })
        batch.clientState = Array(state.utf8)
        let result = try commitChecked(batch, name: name)
        return .json(["name": .string(name), "clientState": .string(state), "upserted": JSONValue(result.upserted),
                      "deleted": JSONValue(result.deleted)])
    }

    /// Commits a batch, saying which batch a compare-and-swap failure is about.
    private func commitChecked(_ batch: SearchIndex.Batch, name: String) throws -> (upserted: Int, deleted: Int) {
        do {
            return try write { try $0.commit(batch, now: configuration.clock()) }
        } catch let error as SearchIndexError where error.kind == .conflict {
            throw APIError(409, "conflict", "batch '\(name)': the stored client state is not expectedClientState; GET /v1/batches/\(name) returns it")
        }
    }

    // MARK: activities and engagement

    /// One device's report. The activity becomes a public item once ``Configuration/activityThreshold``
    /// distinct devices reported it from as many distinct networks (``ClientNetwork``): a
    /// key that invents device ids from one server counts as one network.
    func reportActivity(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = try authenticate(request)
        let body = try body(request, known: ["activityType", "title", "webpageURL", "keywords", "contentDescription", "thumbnailURL",
                                             "deviceId", "apps"])
        let now = configuration.clock()
        let report = try ActivityReport(body)
        guard let host = WebURL(report.webpageURL)?.host, Ownership.isHost(host, within: key.domain) else {
            throw APIError.forbidden("a key for \(key.domain) may only report activities whose webpageURL is on \(key.domain)")
        }
        let deviceHash = SHA256.hash(deviceSalt + Array(report.deviceID.utf8))
        let networkHash = SHA256.hash(deviceSalt + Array(("network:" + ClientNetwork.of(request.remoteAddress)).utf8))
        let reach = try keys.recordActivity(id: report.itemID, owner: key.owner, type: report.activityType,
                                             webpageURL: report.webpageURL, deviceHash: deviceHash, networkHash: networkHash, now: now)
        let isPublic = min(reach.devices, reach.networks) >= configuration.activityThreshold
        if isPublic {
            var batch = SearchIndex.Batch(upserts: [report.item(owner: key.owner, now: now)])
            batch.owner = key.owner
            try write { try $0.commit(batch, now: now) }
        }
        var response = HTTPServerResponse.json([
            "id": .string(report.itemID), "devices": JSONValue(reach.devices), "networks": JSONValue(reach.networks),
            "threshold": JSONValue(configuration.activityThreshold), "public": .bool(isPublic),
        ])
        response.status = 202
        return response
    }

    /// Impressions and clicks, for items the key's owner pushed or whose web page is on the
    /// key's domain: a tenant cannot move another tenant's ranking.
    /// Impressions and clicks of a query's results. With a key, for the items its owner may
    /// report on (``Ownership/mayReportEngagement(on:key:)``). Without one — the search page
    /// — only for items that are among the query's first 20 results for that platform and
    /// those apps (the search is asked again, usually a cache hit), and at most one
    /// impression and one click per item per request: a script can add no more than a
    /// person searching and tapping would.
    func recordEngagement(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let key = request.header("Authorization") == nil ? nil : try authenticate(request)
        let body = try body(request, known: key == nil ? ["query", "events", "platform", "installed"] : ["query", "events"])
        let query = try body.requiredString("query", maximumBytes: 1024)
        let events = try body.array("events", maximumCount: configuration.maximumItemsPerRequest) ?? []
        var counts: [String: (impressions: Int, clicks: Int)] = [:]
        for (index, event) in events.enumerated() {
            let reader = try FieldReader(value: event, path: "body.events[\(index)]")
            try reader.rejectUnknown(["id", "type"])
            let id = try reader.requiredString("id", maximumBytes: SearchableItem.Limits.identifierBytes)
            switch try reader.requiredString("type", maximumBytes: 32) {
            case "impression": counts[id, default: (0, 0)].impressions += 1
            case "click": counts[id, default: (0, 0)].clicks += 1
            default: throw APIError(400, "invalid-field", "body.events[\(index)].type: must be \"impression\" or \"click\"")
            }
        }
        var shown: Set<String> = []
        if key == nil {
            let platformName = try body.string("platform", maximumBytes: 16) ?? "ios"
            guard let platform = AppTarget.Platform(rawValue: platformName) else { throw APIError.badRequest("platform must be ios or android") }
            let installed = Set(try body.strings("installed", maximumCount: 200, maximumBytes: 256))
            shown = try shownIdentifiers(query: query, platform: platform, installed: installed)
        }
        var recorded = 0
        var unknown = 0
        var foreign = 0
        for (id, count) in counts.sorted(by: { $0.key < $1.key }) {
            // Only items the index has: engagement with anything else is noise.
            guard let item = try items.item(identifier: id) else {
                unknown += 1
                continue
            }
            if let key {
                guard Ownership.mayReportEngagement(on: item, key: key) else {
                    foreign += 1
                    continue
                }
                try items.recordEngagement(itemID: id, impressions: count.impressions, clicks: count.clicks)
            } else {
                guard shown.contains(id) else {
                    foreign += 1
                    continue
                }
                try items.recordEngagement(itemID: id, impressions: min(1, count.impressions), clicks: min(1, count.clicks))
            }
            recorded += 1
        }
        if recorded == 0, foreign > 0 {
            throw APIError.forbidden(key.map { "a key for \($0.domain) may report engagement only for its owner's items or pages on \($0.domain)" }
                ?? "without a key, engagement counts only for results the query shows")
        }
        return .json(["items": JSONValue(recorded), "unknownItems": JSONValue(unknown), "foreignItems": JSONValue(foreign)])
    }

    /// The identifiers of a query's first 20 results as the search page asks for them.
    private func shownIdentifiers(query: String, platform: AppTarget.Platform, installed: Set<String>) throws -> Set<String> {
        var search = SearchRequest(query, limit: 20, platform: platform, installed: installed, snippets: true)
        search.now = configuration.clock()
        try search.validate(maximumResults: configuration.maximumSearchLimit)
        if let cache, case .bytes(let bytes) = try cache.response(for: search).body,
            let results = try? JSONParser.parse(bytes: bytes)["results"]?.arrayValue
        {
            return Set(results.compactMap { $0["id"]?.stringValue })
        }
        return Set(try readers.withReader { try $0.search(search) }.hits.map(\.item.uniqueIdentifier))
    }
}

extension HTTPServerResponse {
    static func json(_ value: JSONValue, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPField("Content-Type", "application/json")], body: .bytes(JSONWriter.bytes(value) + [0x0A]))
    }
}
