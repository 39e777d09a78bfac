import Dispatch
import HTTPTypes
import Synchronization
/// The outcome of one ``FetchRequest``: a response, or the reason there is none.
public struct FetchResponse: Sendable {
    public var request: FetchRequest
    /// The HTTP status; 0 when no response arrived.
    public var status: Int
    /// Response header fields of the final response, in order.
    public var headers: [HTTPField]
    /// The status line as received (`HTTP/1.1 200 OK`).
    public var statusLine: String
    /// The body, decoded from its Content-Encoding.
    public var body: [UInt8]
    /// The absolute URL of a 3xx response's Location header.
    public var redirectURL: String?
    /// The address connected to.
    public var remoteAddress: String?
    /// `1.1`, `2`…
    public var httpVersion: String?
    /// Request header fields as sent, for WARC request records.
    public var requestHeaderBlock: String
    public var error: FetchError?
    /// Seconds from start to the end of the transfer.
    public var totalTime: Double
    /// Bytes received on the wire for the body (before decoding).
    public var wireBytes: Int

    public var contentType: String? { headers.first("Content-Type") }

    /// True for a 2xx response with no transfer error.
    public var isSuccess: Bool { error == nil && (200..<300).contains(status) }
    public var isRedirect: Bool { error == nil && [301, 302, 303, 307, 308].contains(status) }
}

extension FetchResponse {
    /// A response made without a transfer: for a ``Downloader`` other than libcurl's (a
    /// scripted web in tests, a cache). `redirectURL` should be absolute.
    public init(request: FetchRequest, status: Int, headers: [HTTPField] = [], body: [UInt8] = [], redirectURL: String? = nil,
                error: FetchError? = nil) {
        self.init(request: request, status: status, headers: headers, statusLine: status == 0 ? "" : "HTTP/1.1 \(status) \(HTTPStatus.reason(status))",
                  body: body, redirectURL: redirectURL, remoteAddress: nil, httpVersion: status == 0 ? nil : "1.1",
                  requestHeaderBlock: "", error: error, totalTime: 0, wireBytes: body.count)
    }
}

/// Why a fetch produced no usable response: a typed ``Kind`` (callers switch on it, never
/// on the message) and a message for people, as async-http-client's errors are.
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case timeout
        case dns
        case connect
        case tls
        case badEncoding = "bad-encoding"
        case redirectLoop = "redirect-loop"
        case invalidURL = "invalid-url"
        /// The connection broke: receive or send errors, an empty reply, HTTP/2 errors.
        case connection
        case network
        case tooLarge = "too-large"
        case refusedAddress = "refused-address"
        case shutdown
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A short stable label for run reports (`timeout`, `too-large`…).
    public var reason: String { kind.rawValue }

    public var description: String { message }

    /// Errors that will not go away by trying again: the crawl gives up on the URL for a
    /// while rather than retrying it soon.
    public var isPermanent: Bool {
        switch kind {
        case .tooLarge, .refusedAddress, .invalidURL, .redirectLoop, .badEncoding: true
        case .timeout, .dns, .connect, .tls, .connection, .network, .shutdown: false
        }
    }

    public static func refusedAddress(_ address: String) -> FetchError {
        FetchError(.refusedAddress, "refused to connect to non-public address \(address) (use --allow-private)")
    }

    public static func tooLarge(_ limit: Int) -> FetchError {
        FetchError(.tooLarge, "body larger than \(limit) bytes")
    }

    public static func invalidURL(_ url: String) -> FetchError {
        FetchError(.invalidURL, "not a valid http(s) URL: \(url)")
    }

    public static let shutdown = FetchError(.shutdown, "the client was shut down before the request finished")
}

extension FetchResponse {
    /// Waits for the response a callback-style `start` delivers: the one synchronous fetch,
    /// for one-off commands (``HTTPClient/fetch(_:)``, `validate`'s downloader), never for
    /// crawling.
    public static func awaiting(_ start: (@escaping @Sendable (FetchResponse) -> Void) -> Void) -> FetchResponse {
        let result = Mutex<FetchResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { response in
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
