import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request as the client sends it.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Seconds the whole exchange may take.
    public var timeout: TimeInterval

    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: TimeInterval = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One HTTP answer: its status, headers (names in lower case) and body.
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// How the client reaches the server: URLSession by default (``URLSessionTransport``);
/// another (the command line's libcurl client, which trusts a private CA file) plugs in
/// here. A transport throws only when no HTTP answer came (connection, TLS, timeout);
/// every status is an answer.
public protocol SearchlightTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// The transport on Foundation's URLSession (FoundationNetworking on Linux), in an
/// ephemeral session: no cookies, no cache, no credentials kept between requests.
public struct URLSessionTransport: SearchlightTransport {
    private let session: URLSession

    public init(configuration: URLSessionConfiguration = .ephemeral) {
        session = URLSession(configuration: configuration)
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }
}
