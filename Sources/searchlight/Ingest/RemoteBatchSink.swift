import Fetch
import Foundation
import HTTPTypes
import Ingest
import ItemMapping
import JSON
import SearchIndex

/// `ingest --server URL --key KEY`: ingest batches sent to a running `searchlight serve`
/// through `POST /v1/batches/{name}` with compare-and-swap on the client state, as an app's
/// backend feeds a shared index. The items belong to the key's owner. The service keeps a
/// pushed item a month unless told otherwise, so an item without an expiration date is
/// sent with the longest the service allows (ten years), as a record does not expire.
struct RemoteBatchSink: IngestSink {
    let server: String
    let key: String
    let caCertificates: String?
    /// The service takes at most 1,000 items and deletions per request.
    var batchLimit = 500

    private func request(_ path: String, method: String, body: JSONValue?) throws -> JSONValue {
        let client = ServerClient.make(caCertificates: caCertificates, timeout: 60)
        defer { client.shutdown() }
        var request = FetchRequest(url: ServerClient.base(server) + path, headers: [HTTPField("Accept", "application/json"), HTTPField("Authorization", "Bearer " + key)])
        request.method = method
        if let body {
            request.body = Array(JSONWriter.string(body).utf8)
            request.headers.append(HTTPField("Content-Type", "application/json"))
        }
        let response = client.fetch(request)
        if let error = response.error { throw CommandFailure("sending to \(server) failed: \(error.message)") }
        let answer = try? JSONParser.parse(bytes: response.body)
        guard response.status == 200, let answer else {
            let message = answer?["error"]?["message"]?.stringValue ?? "HTTP \(response.status)"
            throw CommandFailure("\(server) answered \(response.status): \(message)")
        }
        return answer
    }

    func clientState(_ name: String) throws -> String? {
        try request("/v1/batches/" + name, method: "GET", body: nil)["clientState"]?.stringValue
    }

    func commit(upserts: [SearchableItem], deletions: [String], name: String, expected: String?, state: String) throws {
        let lifetime = Date().addingTimeInterval(SearchableItem.Limits.lifetime - 86_400)
        let items = upserts.map { item -> JSONValue in
            var item = item
            if item.expirationDate == nil { item.expirationDate = lifetime }
            return item.pushedJSON
        }
        _ = try request("/v1/batches/" + name, method: "POST", body: .object(JSONObject([
            ("items", .array(items)), ("deleteIdentifiers", .array(deletions.map(JSONValue.string))),
            ("expectedClientState", expected.map(JSONValue.string) ?? .null), ("clientState", .string(state)),
        ])))
    }
}
