import Dispatch
import Fetch
import Foundation
import HTTPTypes
import SearchlightClient

/// The client library's transport on the crawler's libcurl client, for the command line:
/// it trusts a private CA file (`--cacert`), which URLSession on Linux cannot be told to,
/// and reaches any address (a service on this machine or the private network is the usual
/// case). A fetch blocks, so it runs on a queue of its own, not on the task's thread.
public struct CurlTransport: SearchlightTransport {
    public let caCertificates: String?
    public let userAgent: String

    public init(caCertificates: String?, userAgent: String) {
        self.caCertificates = caCertificates
        self.userAgent = userAgent
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var configuration = FetchConfiguration(userAgent: userAgent)
        configuration.addressPolicy = .any
        configuration.caCertificatesFile = caCertificates
        configuration.timeout = request.timeout
        var fetch = FetchRequest(url: request.url.absoluteString, headers: request.headers.map { HTTPField($0.name, $0.value) })
        fetch.method = request.method
        fetch.body = request.body.map { [UInt8]($0) }
        let (settings, asked) = (configuration, fetch)
        let response = await withCheckedContinuation { (continuation: CheckedContinuation<FetchResponse, Never>) in
            DispatchQueue.global().async {
                let client = HTTPClient(configuration: settings)
                defer { client.shutdown() }
                continuation.resume(returning: client.fetch(asked))
            }
        }
        if let error = response.error { throw TransportFailure(message: error.message) }
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.lowercased()] = field.value }
        return TransportResponse(status: response.status, headers: headers, body: Data(response.body))
    }
}

/// A fetch that got no HTTP answer.
struct TransportFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
