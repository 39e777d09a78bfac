import Dispatch
import Fetch
import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import SearchModel
import ServiceAPI
import StoreSeams
import Synchronization

/// `serve --router`: answers `GET /v1/search` for an index split into shards by asking one
/// live replica of every shard and merging their results, in the shape one node gives.
///
/// Each search is two rounds, as Elasticsearch's `dfs_query_then_fetch`: every shard says
/// what the query reads from its part (``CorpusStatistics``: document and token counts, the
/// document frequency of each term), the router adds them up, and every shard searches
/// with the sum, so an item scores what it would score in one index of all the items. A
/// shard with no live replica, or none that answers in time, is left out and the answer
/// says so (`partial`, `missingShards`) rather than failing.
///
/// The router keeps no state but the node table it re-reads every second: run as many as
/// you like. Writes go to the search nodes (each takes writes for the whole store).
public final class SearchRouter: Sendable {
    public struct Configuration: Sendable {
        /// Nodes that have not reported for longer than this are not asked.
        public var maximumLag: Double = 5
        /// A second replica is asked when the first has not answered after this long.
        public var hedgeAfter: Double = 0.05
        /// A shard that has not answered after this long is missing from the answer.
        public var timeout: Double = 5
        /// How often the node table is read.
        public var refreshInterval: Double = 1
        public var maximumSearchLimit = 100
        /// Routed searches answered at once; one more is refused with 503 and `Retry-After`.
        public var maximumSearchesInFlight = 32
        /// The shard answers' bytes one round of a search reads: each shard's answer may be an
        /// equal part of it (and 4 MiB at most); a shard whose answer is larger is missing.
        public var maximumSearchBytes = 24 << 20
        /// The shard answers' bytes every search in flight holds at once, received and not yet
        /// read (each answer is read as it arrives, then let go); an answer that comes past it
        /// is missing. Normal answers are tens of KB: this binds only answers made to be large.
        public var maximumHeldBytes = 64 << 20
        public var userAgent = "searchlight-router"
        /// A PEM file of CA certificates for nodes advertised over https (`--cacert`); the
        /// system's when nil.
        public var caCertificatesFile: String?
        public var accessLog: AccessLog?
        /// Send the router credential over plain http to nodes on other machines
        /// (`--insecure-nodes`); by default such nodes are not asked (``ShardMap/sendsInClear(_:)``).
        public var allowsPlainHTTPNodes = false

        public init() {}
    }

    public let configuration: Configuration
    private let directory: any SearchNodeDirectory
    let tokens: EngagementToken
    let fanOut: FanOut
    private let client: HTTPClient
    private let current = Mutex(ShardMap.empty)
    let counters = Mutex(Counters())
    let searchesInFlight = Atomic<Int>(0)
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    struct Counters {
        var searches = 0
        var partial = 0
        var failed = 0
        var directoryErrors = 0
        /// Long requests answered with relevance feedback over the shards, and those a
        /// feedback round lost a shard in (answered without feedback).
        var feedbackSearches = 0
        var feedbackLost = 0
    }

    /// - Parameter salt: the store's secret salt (``KeyStore/deviceSalt()``): answers carry
    ///   engagement tokens the nodes accept, and shard requests the ``RouterCredential``.
    public init(configuration: Configuration, directory: any SearchNodeDirectory, salt: [UInt8]) {
        self.configuration = configuration
        self.directory = directory
        tokens = EngagementToken(salt: salt)
        var fetch = FetchConfiguration(userAgent: configuration.userAgent)
        fetch.addressPolicy = .any
        fetch.caCertificatesFile = configuration.caCertificatesFile
        fetch.maximumConnections = 1024
        fetch.maximumConnectionsPerHost = 256
        fetch.timeout = configuration.timeout
        fetch.connectTimeout = min(configuration.timeout, 2)
        // A shard's answer holds at most 1,000 results (a few KB each) or one query's
        // statistics: more is a fault, not an answer.
        fetch.maximumBodyBytes = 4 << 20
        client = HTTPClient(configuration: fetch)
        let credential = RouterCredential(salt: salt)
        fanOut = FanOut(
            client: client, headers: [HTTPField("Content-Type", "application/json"), HTTPField("Accept", "application/json")],
            heldBytes: configuration.maximumHeldBytes
        ) { node, path, body in
            [HTTPField(RouterCredential.header, credential.value(method: "POST", path: path, body: body, node: node))]
        }
    }

    /// The shards and replicas searches go to now.
    public var map: ShardMap { current.withLock { $0 } }

    /// The map for a search: when a shard has no live replica in it (a router started with
    /// its nodes has read the table before the last ones reported), the table is read again
    /// first — at most every ``forcedRefreshInterval``, so a shard that is really gone does
    /// not make every search read the store.
    func mapForSearch() -> ShardMap {
        let map = self.map
        guard map.count == 0 || !map.missing.isEmpty else { return map }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = lastForcedRefresh.withLock { last in
            guard now &- last >= Self.forcedRefreshInterval else { return false }
            last = now
            return true
        }
        if due { refresh() }
        return self.map
    }

    static let forcedRefreshInterval: UInt64 = 200_000_000
    private let lastForcedRefresh = Mutex<UInt64>(0)

    /// Reads the node table once.
    public func refresh() {
        do {
            let nodes = try directory.searchNodes()
            let map = ShardMap(nodes: nodes, maximumSilence: configuration.maximumLag, count: try directory.shardCount(),
                               plainHTTP: configuration.allowsPlainHTTPNodes)
            if !configuration.allowsPlainHTTPNodes { warnOnce(about: nodes.filter { $0.address.map(ShardMap.sendsInClear) == true }) }
            current.withLock { $0 = map }
        } catch {
            // The store is away: keep asking the nodes known last; they answer while their copies are fresh.
            counters.withLock { $0.directoryErrors += 1 }
        }
    }

    /// Names of nodes already reported as left out for plain http.
    private let warned = Mutex<Set<String>>([])

    /// Says once per node, on standard error, why a node advertised over plain http on
    /// another machine is not asked.
    private func warnOnce(about nodes: [CrawlStatus.Node]) {
        let fresh = warned.withLock { seen in nodes.filter { seen.insert($0.name).inserted } }
        for node in fresh {
            let line = "warning: node \(node.name) advertises \(node.address ?? "") over plain http on another machine: it is not asked, "
                + "so that the router's credential does not cross the network in clear (serve it with --tls-cert, or give the router --insecure-nodes)\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// Serves the API on a server of `configuration`, reading the node table every
    /// ``Configuration/refreshInterval`` until ``stop()``.
    public func serve(_ configuration: HTTPServer.Configuration) throws -> HTTPServer {
        refresh()
        started.store(true, ordering: .relaxed)
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                Thread.sleep(forTimeInterval: self.configuration.refreshInterval)
                refresh()
            }
            finished.signal()
        }
        thread.name = "searchlight.router-directory"
        thread.start()
        var server = configuration
        server.maximumBodyBytes = 0
        return try HTTPServer(configuration: server, admission: { _ in .accept(BodyAllowance(holder: .everyone, maximumBytes: 0)) },
                              handler: { [self] in handle($0) })
    }

    public func stop() {
        stopped.store(true, ordering: .relaxed)
        if started.load(ordering: .relaxed) { finished.wait() }
        client.shutdown(cancelInFlight: true)
    }

    public func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let response: HTTPServerResponse
        do {
            response = try respond(to: request)
        } catch let error as APIError {
            response = error.response
        } catch let error as SearchIndexError {
            response = APIError(error).response
        } catch {
            response = APIError.internalError(error).response
        }
        let hardened = response.hardened
        configuration.accessLog?.record(request, hardened, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
        return hardened
    }

    private func respond(to request: HTTPServerRequest) throws -> HTTPServerResponse {
        let path = request.path
        guard request.method == "GET" || request.method == "HEAD" else {
            throw APIError(421, "router", "this is a router: it answers GET /v1/search, /healthz and /metrics; send writes to any search node of the store")
        }
        switch path {
        case APIPath.search: return try search(request)
        case APIPath.health: return health()
        case APIPath.metrics: return metrics()
        case APIPath.openAPI: return .json(OpenAPIDocument.json)
        default: throw APIError.notFound("a router answers GET /v1/search, /healthz and /metrics, not \(path.prefix(200))")
        }
    }

    func health() -> HTTPServerResponse {
        let map = self.map
        let missing = map.count == 0 ? [] : map.missing
        let healthy = map.count > 0 && missing.isEmpty
        return .json(.object(JSONObject([
            ("status", .string(healthy ? "ok" : "degraded")), ("shards", JSONValue(map.count)),
            ("replicas", .array(map.replicas.map { JSONValue($0.count) })), ("missingShards", .array(missing.map { JSONValue($0) })),
            ("nodes", .array(map.replicas.map { .array($0.map { .string($0.name) }) })),
        ])), status: healthy ? 200 : 503)
    }

    func metrics() -> HTTPServerResponse {
        let counts = counters.withLock { $0 }
        let map = self.map
        var lines = [
            "# TYPE searchlight_router_searches_total counter", "searchlight_router_searches_total \(counts.searches)",
            "# TYPE searchlight_router_partial_answers_total counter", "searchlight_router_partial_answers_total \(counts.partial)",
            "# TYPE searchlight_router_failed_searches_total counter", "searchlight_router_failed_searches_total \(counts.failed)",
            "# TYPE searchlight_router_shard_attempts_total counter", "searchlight_router_shard_attempts_total \(fanOut.attempts.load(ordering: .relaxed))",
            "# TYPE searchlight_router_hedges_total counter", "searchlight_router_hedges_total \(fanOut.hedges.load(ordering: .relaxed))",
            "# TYPE searchlight_router_failovers_total counter", "searchlight_router_failovers_total \(fanOut.failovers.load(ordering: .relaxed))",
            "# TYPE searchlight_router_directory_errors_total counter", "searchlight_router_directory_errors_total \(counts.directoryErrors)",
            "# TYPE searchlight_router_feedback_searches_total counter", "searchlight_router_feedback_searches_total \(counts.feedbackSearches)",
            "# TYPE searchlight_router_feedback_lost_total counter", "searchlight_router_feedback_lost_total \(counts.feedbackLost)",
            "# TYPE searchlight_router_live_replicas gauge",
        ]
        for (shard, replicas) in map.replicas.enumerated() { lines.append("searchlight_router_live_replicas{shard=\"\(shard)\"} \(replicas.count)") }
        return HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                                  body: .bytes(Array((lines.joined(separator: "\n") + "\n").utf8)))
    }
}
