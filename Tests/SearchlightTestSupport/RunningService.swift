import Fetch
import Foundation
import HTTPServer
import HTTPTypes
import Items
import JSON
import PostgresStore
import SearchIndex
import Service
import Synchronization

/// Where a test service keeps its items and keys: the embedded files of a data folder, or
/// a fresh database of the throwaway PostgreSQL cluster (multi-machine mode, with the
/// service's index a copy following the store's change log).
public enum ServiceBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case embedded, postgres
    public var description: String { rawValue }
}

/// A `SearchService` on 127.0.0.1 at a free port, in process, over a fresh data folder,
/// and a libcurl client to talk to it.
public final class RunningService: Sendable {
    public let folder: TemporaryDirectory
    public let service: SearchService
    public let server: HTTPServer
    public let api: APIClient
    /// The shared store's URL, for the PostgreSQL backend.
    public let storeURL: String?
    private let follower: LogFollower?

    public init(backend: ServiceBackend = .embedded, activityThreshold: Int = 3, maximumBodyBytes: Int = 1 << 20, maximumItems: Int = 100,
                cacheBytes: Int = 64 << 20, clock: (@Sendable () -> Date)? = nil,
                service configureService: (inout SearchService.Configuration) -> Void = { _ in },
                http configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws
    {
        folder = try TemporaryDirectory("service")
        var configuration = SearchService.Configuration(indexPath: folder.path + "/index.sqlite")
        configuration.activityThreshold = activityThreshold
        configuration.maximumBodyBytes = maximumBodyBytes
        configuration.maximumItemsPerRequest = maximumItems
        configuration.cacheBytes = cacheBytes
        if let clock { configuration.clock = clock }
        configureService(&configuration)
        _ = try SearchIndex(path: configuration.indexPath)
        let service: SearchService
        switch backend {
        case .embedded:
            service = try SearchService(configuration: configuration)
            storeURL = nil
            follower = nil
        case .postgres:
            let url = try PostgresCluster.shared.get().newDatabase()
            let shared = try SharedStore(url: url)
            let follower = try LogFollower(store: shared, indexPath: configuration.indexPath, name: "tests")
            try follower.catchUp()
            service = try SearchService(configuration: configuration, items: PostgresItemStore(shared), keys: PostgresKeyStore(shared),
                                        replica: follower)
            storeURL = url
            self.follower = follower
        }
        self.service = service
        var http = HTTPServer.Configuration()
        http.threading = .pool(4)
        configure(&http)
        server = try service.serve(http)
        service.answer(as: "http://127.0.0.1:\(server.port)")
        api = APIClient(base: "http://127.0.0.1:\(server.port)")
    }

    public var client: HTTPClient { api.client }

    public var indexPath: String { service.configuration.indexPath }
    public var baseURL: String { "http://127.0.0.1:\(server.port)" }

    public func stop() {
        api.shutdown()
        server.stop(gracePeriod: 1)
        follower?.stop()
        folder.remove()
    }

    /// A new key for `domain`, owned by `owner`.
    public func key(owner: String, domain: String) throws -> String {
        if let storeURL { return try PostgresKeyStore(try SharedStore(url: storeURL)).createKey(owner: owner, domain: domain).secret }
        return try ServiceStore(path: service.configuration.storePath).createKey(owner: owner, domain: domain).secret
    }

    public typealias Reply = APIClient.Reply

    /// One request; `json` is sent as the body with `Content-Type: application/json`.
    @discardableResult
    public func call(_ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, key: String? = nil,
                     contentType: String? = "application/json", from localAddress: String? = nil, headers: [HTTPField] = []) -> Reply {
        api.call(method, path, json: json, body: body, key: key, contentType: contentType, from: localAddress, headers: headers)
    }

    /// The ids `/v1/search` finds for `query`, in order.
    @discardableResult
    public func ids(_ query: String, _ extra: String = "") -> [String] {
        let reply = call("GET", "/v1/search?q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query) + extra)
        return reply.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }
}

/// A pushed item in the DESIGN.md format.
public func item(_ id: String, _ title: String, webURL: String? = nil, domain: String? = nil, extra: [(String, JSONValue)] = []) -> JSONValue {
    var fields: [(String, JSONValue)] = [("uniqueIdentifier", .string(id)), ("title", .string(title))]
    if let webURL { fields.append(("webURL", .string(webURL))) }
    if let domain { fields.append(("domainIdentifier", .string(domain))) }
    return .object(JSONObject(fields + extra))
}

public func items(_ list: JSONValue...) -> JSONValue { ["items": .array(list)] }

/// A libcurl client of a running API (in process, or a `serve` child), for tests.
public final class APIClient: Sendable {
    public let base: String
    public let client: HTTPClient

    public init(base: String) {
        self.base = base
        var fetch = FetchConfiguration(userAgent: "searchlight-tests")
        fetch.addressPolicy = .any
        fetch.maximumConnections = 16
        fetch.maximumConnectionsPerHost = 16
        client = HTTPClient(configuration: fetch)
    }

    private let stopped = Atomic(false)

    deinit { shutdown() }

    /// Stops the client's loop; once, however often it is called.
    public func shutdown() {
        if !stopped.exchange(true, ordering: .relaxed) { client.shutdown() }
    }

    public struct Reply: Sendable {
        public var status: Int
        public var json: JSONValue?
        public var text: String
        public var headers: [HTTPField]

        public var errorCode: String? { json?["error"]?["code"]?.stringValue }
    }

    /// One request; `json` is sent as the body with `Content-Type: application/json`.
    @discardableResult
    public func call(_ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, key: String? = nil,
                     contentType: String? = "application/json", from localAddress: String? = nil, headers: [HTTPField] = []) -> Reply {
        var request = FetchRequest(url: base + path, headers: headers)
        request.method = method
        request.body = json.map { JSONWriter.bytes($0) } ?? body
        if request.body != nil, let contentType { request.headers.append(HTTPField("Content-Type", contentType)) }
        if let key { request.headers.append(HTTPField("Authorization", "Bearer \(key)")) }
        let response: FetchResponse
        if let localAddress {
            // Another loopback address (any of 127.0.0.0/8) stands for another network.
            var configuration = client.configuration
            configuration.localAddress = localAddress
            let other = HTTPClient(configuration: configuration)
            response = other.fetch(request)
            other.shutdown()
        } else {
            response = client.fetch(request)
        }
        return Reply(status: response.status, json: try? JSONParser.parse(bytes: response.body),
                     text: String(decoding: response.body, as: UTF8.self), headers: response.headers)
    }
}
