import Fetch
import Foundation
import HTTPTypes
import JSON
import SearchIndex
import TextUtilities

/// `search --server`: the same search asked of a running `searchlight serve` over
/// libcurl, read back into the same ``SearchResponse`` a local search gives.
struct RemoteSearch {
    let server: String
    let caCertificates: String?

    func search(_ request: SearchRequest) throws -> SearchResponse {
        var parameters = [("q", request.text), ("limit", String(request.limit)), ("platform", request.platform.rawValue)]
        parameters += request.installed.sorted().map { ("installed", $0) }
        if request.snippets { parameters.append(("snippets", "1")) }
        if request.offset > 0 { parameters.append(("offset", String(request.offset))) }
        if request.typing { parameters.append(("typing", "1")) }
        let url = ServerClient.base(server) + "/v1/search?" + parameters.map { "\($0.0)=\(Unreserved.encodingOthers($0.1))" }.joined(separator: "&")
        let client = ServerClient.make(caCertificates: caCertificates, timeout: 30)
        defer { client.shutdown() }
        let response = client.fetch(FetchRequest(url: url, headers: [HTTPField("Accept", "application/json")]))
        if let error = response.error { throw CommandFailure("asking \(server) failed: \(error.message)") }
        let body = try? JSONParser.parse(bytes: response.body)
        guard response.status == 200, let body else {
            let message = body?["error"]?["message"]?.stringValue ?? "HTTP \(response.status)"
            if response.status == 400 { throw UsageError(message) }
            throw CommandFailure("\(server) answered \(response.status): \(message)")
        }
        do {
            return try SearchResponse(json: body)
        } catch {
            throw CommandFailure("\(server) did not answer with search results: \(error.message)")
        }
    }

}
