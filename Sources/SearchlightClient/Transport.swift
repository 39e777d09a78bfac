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
///
/// An answer's body is read as it arrives and the exchange is cancelled once it passes
/// ``maximumResponseBytes`` (a ``SearchlightError`` with code `tooLarge`): a server — or
/// anything posing as one — cannot make the app buffer an endless body.
public struct URLSessionTransport: SearchlightTransport {
    /// The most bytes of one answer's body kept: 16 MiB by default (a page of 1,000
    /// results with snippets is under 2 MiB).
    public let maximumResponseBytes: Int
    private let owner: SessionOwner

    public init(configuration: URLSessionConfiguration = .ephemeral, maximumResponseBytes: Int = 16 << 20) {
        self.maximumResponseBytes = max(1, maximumResponseBytes)
        owner = SessionOwner(configuration: configuration)
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let task = owner.session.dataTask(with: urlRequest)
        let collected = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                owner.collector.start(task, limit: maximumResponseBytes, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
        guard let http = collected.response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: collected.body)
    }
}

/// The session and its delegate; the session is invalidated when the last copy of the
/// transport goes (a session keeps its delegate until then).
private final class SessionOwner: Sendable {
    let collector = ResponseCollector()
    let session: URLSession

    init(configuration: URLSessionConfiguration) {
        session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }
}

/// Gathers each task's answer as its bytes arrive, and cancels a task whose body passes
/// its limit. `@unchecked Sendable`: URLSession calls the delegate from its own queue;
/// every piece of state is behind the lock.
private final class ResponseCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Collected {
        var response: URLResponse?
        var body = Data()
    }

    private struct Pending {
        var collected = Collected()
        var limit: Int
        var tooLarge = false
        var continuation: CheckedContinuation<Collected, any Error>
    }

    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]

    func start(_ task: URLSessionDataTask, limit: Int, continuation: CheckedContinuation<Collected, any Error>) {
        lock.withLock { pending[task.taskIdentifier] = Pending(limit: limit, continuation: continuation) }
        task.resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let declared = response.expectedContentLength
        let refuse = lock.withLock { () -> Bool in
            guard var entry = pending[dataTask.taskIdentifier] else { return false }
            entry.collected.response = response
            entry.tooLarge = declared > Int64(entry.limit)
            pending[dataTask.taskIdentifier] = entry
            return entry.tooLarge
        }
        completionHandler(refuse ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let refuse = lock.withLock { () -> Bool in
            guard var entry = pending[dataTask.taskIdentifier], !entry.tooLarge else { return false }
            if entry.collected.body.count + data.count > entry.limit {
                entry.tooLarge = true
                entry.collected.body = Data()
            } else {
                entry.collected.body.append(data)
            }
            pending[dataTask.taskIdentifier] = entry
            return entry.tooLarge
        }
        if refuse { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if entry.tooLarge {
            entry.continuation.resume(throwing: SearchlightError(.tooLarge, "the answer from \(task.originalRequest?.url?.host ?? "the server") "
                                                                    + "passed \(entry.limit) bytes; the exchange was cancelled"))
        } else if let error {
            entry.continuation.resume(throwing: error)
        } else {
            entry.continuation.resume(returning: entry.collected)
        }
    }
}
