/// The outcome of one ``FetchRequest``: a response, or the reason there is none.
public struct FetchResponse: Sendable {
    public var request: FetchRequest
    /// The HTTP status; 0 when no response arrived.
    public var status: Int
    /// Response header fields of the final response, in order.
    public var headers: [HTTPHeader]
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

/// Why a fetch produced no usable response. A struct with static values, so kinds can be
/// added; ``reason`` is a short stable label for run reports.
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable label: `timeout`, `too-large`, `refused-address`, `dns`, `connect`, `tls`…
    public var reason: String
    public var message: String

    public init(reason: String, message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    public static func refusedAddress(_ address: String) -> FetchError {
        FetchError(reason: "refused-address", message: "refused to connect to non-public address \(address) (use --allow-private)")
    }

    public static func tooLarge(_ limit: Int) -> FetchError {
        FetchError(reason: "too-large", message: "body larger than \(limit) bytes")
    }

    public static func invalidURL(_ url: String) -> FetchError {
        FetchError(reason: "invalid-url", message: "not a valid http(s) URL: \(url)")
    }

    public static let shutdown = FetchError(reason: "shutdown", message: "the client was shut down before the request finished")
}
