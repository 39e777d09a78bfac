import Fetch
import Foundation
import HTTPServer
import HTTPTypes
import JSON
import SearchIndex
import SearchlightTestSupport
import Service

/// A `SearchService` on 127.0.0.1 at a free port, in process, over a fresh data folder,
/// and a libcurl client to talk to it.
final class RunningService: Sendable {
    let folder: TemporaryDirectory
    let service: SearchService
    let server: HTTPServer
    let client: HTTPClient

    init(activityThreshold: Int = 3, maximumBodyBytes: Int = 1 << 20, maximumItems: Int = 100, cacheBytes: Int = 64 << 20,
         clock: (@Sendable () -> Date)? = nil, http configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws
    {
        folder = try TemporaryDirectory("service")
        var configuration = SearchService.Configuration(indexPath: folder.path + "/index.sqlite")
        configuration.activityThreshold = activityThreshold
        configuration.maximumBodyBytes = maximumBodyBytes
        configuration.maximumItemsPerRequest = maximumItems
        configuration.cacheBytes = cacheBytes
        if let clock { configuration.clock = clock }
        _ = try SearchIndex(path: configuration.indexPath)
        let service = try SearchService(configuration: configuration)
        self.service = service
        var http = HTTPServer.Configuration()
        http.threading = .pool(4)
        configure(&http)
        server = try service.serve(http)
        var fetch = FetchConfiguration(userAgent: "searchlight-tests")
        fetch.addressPolicy = .any
        fetch.maximumConnections = 16
        fetch.maximumConnectionsPerHost = 16
        client = HTTPClient(configuration: fetch)
    }

    var indexPath: String { service.configuration.indexPath }
    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    func stop() {
        client.shutdown()
        server.stop(gracePeriod: 1)
        folder.remove()
    }

    /// A new key for `domain`, owned by `owner`.
    func key(owner: String, domain: String) throws -> String {
        try ServiceStore(path: service.configuration.storePath).createKey(owner: owner, domain: domain).secret
    }

    struct Reply {
        var status: Int
        var json: JSONValue?
        var text: String
        var headers: [HTTPField]

        var errorCode: String? { json?["error"]?["code"]?.stringValue }
    }

    /// One request; `json` is sent as the body with `Content-Type: application/json`.
    @discardableResult
    func call(_ method: String, _ path: String, json: JSONValue? = nil, body: [UInt8]? = nil, key: String? = nil,
              contentType: String? = "application/json", from localAddress: String? = nil) -> Reply {
        var request = FetchRequest(url: baseURL + path)
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

    /// The ids `/v1/search` finds for `query`, in order.
    @discardableResult
    func ids(_ query: String, _ extra: String = "") -> [String] {
        let reply = call("GET", "/v1/search?q=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query) + extra)
        return reply.json?["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }
}

/// A pushed item in the DESIGN.md format.
func item(_ id: String, _ title: String, webURL: String? = nil, domain: String? = nil, extra: [(String, JSONValue)] = []) -> JSONValue {
    var fields: [(String, JSONValue)] = [("uniqueIdentifier", .string(id)), ("title", .string(title))]
    if let webURL { fields.append(("webURL", .string(webURL))) }
    if let domain { fields.append(("domainIdentifier", .string(domain))) }
    return .object(JSONObject(fields + extra))
}

func items(_ list: JSONValue...) -> JSONValue { ["items": .array(list)] }
