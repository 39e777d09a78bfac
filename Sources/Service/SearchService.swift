import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchIndex
import ServiceAPI
import StoreSeams
import Synchronization
import TextUtilities
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
        public var cacheRefreshInterval: TimeInterval = 1
        /// Bytes of cached answers kept; past that the least recently stored go.
        public var cacheBytes = 64 << 20
        /// With a ``SearchReplica``: searches are refused (503) while the copy is further
        /// behind its change log than this.
        public var maximumLag: TimeInterval = 5
        /// Anonymous engagement reports (the search page's) per client network (/24, /56):
        /// a burst, then this many a second.
        public var anonymousEngagementBurst = 20.0
        public var anonymousEngagementPerSecond = 0.5
        /// Anonymous engagement reports over all networks, a second (twice that in a burst):
        /// a client with many addresses still has a ceiling.
        public var anonymousEngagementPerSecondOverall = 200.0
        /// Engagement events one key may report: a burst, then this many a second.
        public var keyedEngagementBurst = 10_000.0
        public var keyedEngagementPerSecond = 200.0
        public var clock: @Sendable () -> Date = { Date() }
        /// Reads the record behind an item of the given key owner when its source database
        /// was ingested on this machine under that owner's name (`serve` sets it from the
        /// data folder's ingest state); nil otherwise. What it returns is only what the
        /// source's mapping maps.
        public var recordResolver: (@Sendable (_ owner: String, RecordReference) throws -> JSONValue?)?
        /// Where each request is logged (`serve --access-log`), if anywhere.
        public var accessLog: AccessLog?
        /// Takes IndexNow notices for the crawl (`serve --indexnow`); nil: `/indexnow` is 404.
        public var indexNow: IndexNowDesk?
        /// Reads the crawl's freshness counts and due backlog for `/metrics` (`serve` sets it
        /// from the data folder's frontier or the shared store); nil leaves them out.
        public var crawlFigures: (@Sendable () throws -> (freshness: CrawlFreshness, due: Int)?)?

        public init(indexPath: String) {
            self.indexPath = indexPath
            self.storePath = (indexPath as NSString).deletingLastPathComponent.isEmpty
                ? "service.sqlite" : ((indexPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("service.sqlite")
        }
    }

    public let configuration: Configuration
    /// Every path the API answers, with its methods.
    public static var routes: [(path: String, methods: [String])] { Route.table }
    let readers: ReaderPool
    /// Where writes go: the index itself, or the shared store in multi-machine mode.
    let items: ItemStore
    let keys: KeyStore
    private let replica: SearchReplica?
    let deviceSalt: [UInt8]
    private let metrics = ServiceMetrics()
    private let cache: SearchCache?
    let tokens: EngagementToken
    let router: RouterCredential
    let replays = ReplayGuard()
    /// The address routers reach this node at (``answer(as:)``): what their credential must name.
    private let advertised = Mutex<String?>(nil)
    let limits: EngagementLimits

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
        let salt = try keys.deviceSalt()
        deviceSalt = salt
        let tokens = EngagementToken(salt: salt)
        self.tokens = tokens
        router = RouterCredential(salt: salt)
        limits = EngagementLimits(configuration)
        if configuration.cacheLifetime > 0 {
            cache = try SearchCache(indexPath: configuration.indexPath, lifetime: configuration.cacheLifetime,
                                    refreshInterval: configuration.cacheRefreshInterval, capacityBytes: configuration.cacheBytes,
                                    clock: configuration.clock)
            { request in Self.answer(try readers.withReader { try $0.answer(request) }, tokens: tokens, now: request.now) }
        } else {
            cache = nil
        }
    }

    /// Takes router requests signed for `address`, the URL this node advertises in the
    /// store (``RouterCredential``): one signed for another node is refused.
    public func answer(as address: String) {
        advertised.withLock { $0 = address }
    }

    /// The address router requests must be signed for; nil before ``answer(as:)``.
    var advertisedAddress: String? { advertised.withLock { $0 } }

    /// Starts an HTTP server for the API: ``admit(_:)`` on each request's head, then
    /// ``handle(_:)`` on the whole request; the server's body limit is the service's.
    public func serve(_ configuration: HTTPServer.Configuration) throws -> HTTPServer {
        var configuration = configuration
        configuration.maximumBodyBytes = self.configuration.maximumBodyBytes
        configuration.refusal = { status, code, message in APIError(status, code, message).response.hardened }
        return try HTTPServer(configuration: configuration, admission: { [self] in admit($0) }, handler: { [self] in handle($0) })
    }

    /// Decides from a request's head, before its body is read: a write with a wrong key or
    /// content type is answered at once, so an anonymous client cannot make the server
    /// buffer bodies; a key's body counts against its own share of the body budget, an
    /// anonymous engagement report against the small anonymous budget of its network, and
    /// a request that takes no body may not send one.
    public func admit(_ request: HTTPServerRequest) -> AdmissionDecision {
        let network = ClientNetwork.forLimits(request.remoteAddress)
        let noBody = BodyAllowance(holder: .anonymous(network: network), maximumBytes: 0)
        if SearchPage.serves(request.path) { return .accept(noBody) }
        let route: Route
        do {
            route = try Route(method: request.method, segments: Self.segments(request.path))
        } catch {
            // A request for no route (or with a bad name in its path) is answered from its head.
            let response = error.response.hardened
            metrics.record(route: "unknown", status: response.status, seconds: 0)
            return .answer(response)
        }
        if route.isShardRoute {
            guard let node = advertisedAddress else {
                return .answer(APIError.forbidden("/v1/shard/… answers a router of this store, on a node that advertises its address (serve --store … --advertise URL)")
                    .response.hardened)
            }
            guard router.acceptsHead(request.header(RouterCredential.header), method: request.method, path: request.path, node: node, now: Date()) else {
                return .answer(APIError.forbidden("/v1/shard/… answers a router of this store (serve --router) only, signed for this node (\(node))")
                    .response.hardened)
            }
            return .accept(BodyAllowance(holder: .principal("router"), maximumBytes: Self.shardBodyBytes))
        }
        if case .indexNow = route, request.method == "POST" {
            // A site's notice comes without a key: its body counts against the anonymous budget.
            do {
                try checkContentType(request)
            } catch {
                return .answer((error as? APIError ?? APIError.internalError(error)).response.hardened)
            }
            return .accept(BodyAllowance(holder: .anonymous(network: network), maximumBytes: Self.indexNowBodyBytes, maximumSeconds: 30))
        }
        guard route.needsKey else { return .accept(noBody) }
        do {
            // The search page reports engagement without a key (checked against the token of the answer it was shown).
            if case .recordEngagement = route, request.header("Authorization") == nil {
                try checkContentType(request)
                return .accept(BodyAllowance(holder: .anonymous(network: network), maximumBytes: Self.anonymousBodyBytes, maximumSeconds: 10))
            }
            let key = try authenticate(request)
            guard route.takesBody else { return .accept(BodyAllowance(holder: .principal(key.id), maximumBytes: 0, context: key)) }
            try checkContentType(request)
            return .accept(BodyAllowance(holder: .principal(key.id), context: key))
        } catch {
            let response = (error as? APIError ?? APIError.internalError(error)).response.hardened
            metrics.record(route: route.label, status: response.status, seconds: 0)
            configuration.accessLog?.record(request, response, seconds: 0)
            return .answer(response)
        }
    }

    /// The largest body a router's shard request may have (a long query's statistics).
    static let shardBodyBytes = 2 << 20

    /// The largest IndexNow notice: 10,000 URLs of about 100 bytes (the anonymous budget of
    /// the whole server is 1 MiB).
    static let indexNowBodyBytes = 1 << 20

    /// The largest body an anonymous engagement report may have.
    static let anonymousBodyBytes = 64 * 1024

    /// Handles one request: routes it, turns every failure into a JSON error, records
    /// the metrics.
    public func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let (route, response) = respond(to: request)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000_000
        metrics.record(route: route, status: response.status, seconds: seconds)
        let hardened = response.hardened
        configuration.accessLog?.record(request, hardened, seconds: seconds)
        return hardened
    }

    static func segments(_ path: String) -> [String] {
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
            return (route.label, APIError.internalError(error).response)
        }
    }

    // MARK: reading


    /// The parameters `GET /v1/search` reads; any other is refused, so a misspelt one
    /// (`limt`, `ofset`) is not silently ignored.
    func search(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let search = try SearchParameters.request(from: request, maximumResults: configuration.maximumSearchLimit, now: configuration.clock())
        try checkCaughtUp()
        guard let cache else { return Self.answer(try readers.withReader { try $0.answer(search) }, tokens: tokens, now: search.now).response }
        return try cache.response(for: search)
    }

    /// Searches on a node that follows a shared store are refused (503) while its copy is
    /// more than ``Configuration/maximumLag`` behind: a router or client tries another node.
    func checkCaughtUp() throws {
        guard let replica else { return }
        let lag = replica.lag ?? .infinity
        guard lag <= configuration.maximumLag else {
            throw APIError(503, "behind", lag.isFinite
                ? "this node's copy of the index is \(Int(lag)) s behind the shared store (at most \(Int(configuration.maximumLag)) s allowed); try another node"
                : "this node's copy of the index has not caught up with the shared store yet; try another node")
        }
    }

    /// A search answer as the API gives it: without the app records ingested items came
    /// from (those are their owners' business: `GET /v1/items/{id}/source`), with the token
    /// the search page sends back with its engagement, and the earliest expiration among
    /// its results (a cached answer is never served past it).
    static func answer(_ answer: SearchAnswer, tokens: EngagementToken, now: Date) -> SearchCache.Answer {
        let results = answer.response
        var object = results.json(showingRecords: false).objectValue ?? JSONObject()
        if !results.hits.isEmpty {
            object.append("engagementToken", .string(tokens.issue(for: results.hits.map(\.item.key), now: now)))
        }
        return SearchCache.Answer(response: .json(.object(object)), expiresAt: results.hits.compactMap(\.item.expirationDate).min() ?? .distantFuture,
                                  dependencies: answer.dependencies)
    }

    func health() throws -> HTTPServerResponse {
        _ = try readers.withReader { try $0.count() }
        return .json(["status": "ok"])
    }

    func metricsText() throws -> HTTPServerResponse {
        let items = try readers.withReader { try $0.count() }
        let bytes = SearchIndex.bytesOnDisk(path: configuration.indexPath)
        let crawl = try configuration.crawlFigures?()
        return .text(metrics.text(indexItems: items, indexBytes: bytes, cache: cache?.statistics, crawl: crawl), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    // MARK: writing

    /// Runs a write on the item store; then brings this node's copy up to date (when it is
    /// one) and empties the result cache, so that the writer's next search sees it.
    @discardableResult
    func write<T>(_ body: (ItemStore) throws -> T) throws -> T {
        defer { cache?.invalidate() }
        let result = try body(items)
        try replica?.catchUp()
        return result
    }

    /// Brings this node's copy up to date after a write that is not the writer's own to
    /// read back at once (engagement): the result cache keeps its answers, which show the
    /// change within its refresh interval.
    func catchUpReplica() throws {
        try replica?.catchUp()
    }

    /// The key the request carries, or 401.
    /// The request's key: the one admission checked from its head, else checked now (a
    /// request handed to ``handle(_:)`` without admission).
    func authenticated(_ request: HTTPServerRequest) throws -> APIKey {
        if let key = request.admission as? APIKey { return key }
        return try authenticate(request)
    }

    /// 401 says which of three things is wrong: no key, a header that is not `Bearer`, or a
    /// key this service does not accept; "revoked" only to whoever holds the key's secret, so
    /// a guesser learns nothing from it.
    func authenticate(_ request: HTTPServerRequest) throws -> APIKey {
        guard let header = request.header("Authorization") else { throw APIError.unauthorized }
        guard header.utf8.count <= 256, header.lowercased().hasPrefix("bearer ") else {
            throw APIError(401, "unauthorized", "the Authorization header must be `Bearer <key>` (the key `searchlight keys create` printed)")
        }
        guard let key = try keys.authenticate(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)) else {
            throw APIError(401, "invalid-key", "this API key is not one this service issued, or its secret is wrong")
        }
        if let revoked = key.revoked {
            throw APIError(401, "key-revoked", "this API key was revoked on \(ISO8601.string(fromSeconds: revoked.timeIntervalSince1970)); ask the operator for a new one")
        }
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
}
