import Fetch
import Foundation
import HTTPTypes
import Items
import JSON
import SearchModel
import ServiceAPI
import TextUtilities

/// A client of a running `searchlight serve` (`search --server`, `ingest --server`): the
/// service's own JSON read back into the same values a local index gives. Any address is
/// allowed — a service on this machine or the private network is the usual case — with
/// the user's CA file for https.
public struct ServiceClient: Sendable {
    /// The server URL without a trailing slash, ready for `/v1/…`.
    public let server: String
    public let caCertificates: String?
    public let userAgent: String
    /// An API key, sent as `Authorization: Bearer …` (writes need one).
    public var key: String?

    public init(server: String, caCertificates: String?, userAgent: String, key: String? = nil) {
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.caCertificates = caCertificates
        self.userAgent = userAgent
        self.key = key
    }

    /// `GET /v1/search`, asked as a local search is asked.
    public func search(_ request: SearchRequest) throws(ServiceClientError) -> SearchResponse {
        let answer = try send(APIPath.search + "?" + SearchParameters.query(for: request), method: "GET", body: nil, timeout: 30)
        do {
            return try SearchResponse(json: answer)
        } catch {
            throw ServiceClientError(.notUnderstood, "\(server) did not answer with search results: \(error.message)")
        }
    }

    /// The client state an ingest batch stream last committed (`GET /v1/batches/{name}`).
    public func batchState(_ name: String) throws(ServiceClientError) -> String? {
        try send(APIPath.batch(name), method: "GET", body: nil, timeout: 60)["clientState"]?.stringValue
    }

    /// `POST /v1/batches/{name}`: items and deletions applied at once, only if the stream's
    /// state is still `expected` (compare-and-swap), which becomes `state`.
    public func commitBatch(_ name: String, items: [SearchableItem], deletions: [String], expected: String?, state: String) throws(ServiceClientError) {
        _ = try send(APIPath.batch(name), method: "POST", body: .object(JSONObject([
            ("items", .array(items.map(\.pushedJSON))), ("deleteIdentifiers", .array(deletions.map(JSONValue.string))),
            ("expectedClientState", expected.map(JSONValue.string) ?? .null), ("clientState", .string(state)),
        ])), timeout: 60)
    }

    private func send(_ path: String, method: String, body: JSONValue?, timeout: Double) throws(ServiceClientError) -> JSONValue {
        var configuration = FetchConfiguration(userAgent: userAgent)
        configuration.addressPolicy = .any
        configuration.caCertificatesFile = caCertificates
        configuration.timeout = timeout
        let client = HTTPClient(configuration: configuration)
        defer { client.shutdown() }
        var request = FetchRequest(url: server + path, headers: [HTTPField("Accept", "application/json")])
        if let key { request.headers.append(HTTPField("Authorization", "Bearer " + key)) }
        request.method = method
        if let body {
            request.body = Array(JSONWriter.string(body).utf8)
            request.headers.append(HTTPField("Content-Type", "application/json"))
        }
        let response = client.fetch(request)
        if let error = response.error { throw ServiceClientError(.unreachable, "asking \(server) failed: \(error.message)") }
        let answer = try? JSONParser.parse(bytes: response.body)
        guard response.status == 200, let answer else {
            let message = answer?["error"]?["message"]?.stringValue ?? "HTTP \(response.status)"
            throw ServiceClientError(response.status == 400 ? .badRequest : .refused, "\(server) answered \(response.status): \(message)",
                                     status: response.status, serviceMessage: message)
        }
        return answer
    }
}
