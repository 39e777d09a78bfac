import HTTPTypes
import TextUtilities

/// One request, read completely before the handler runs.
public struct HTTPServerRequest: Sendable {
    public var method: String
    /// The path as sent, still percent-encoded.
    public var path: String
    /// Query parameters in order, still percent-encoded (libmicrohttpd has already read
    /// `+` as a space); see ``queryValue(_:)``.
    public var rawQueryItems: [(name: String, value: String?)]
    public var headers: [HTTPField]
    public var body: [UInt8]
    /// True when the body was larger than the server accepts; ``body`` is then empty.
    public var bodyTooLarge: Bool
    public var remoteAddress: String?
    /// What the server's admission learned from the head (``BodyAllowance/context``).
    public var admission: (any Sendable)?

    public init(method: String, path: String, rawQueryItems: [(name: String, value: String?)] = [], headers: [HTTPField] = [],
                body: [UInt8] = [], bodyTooLarge: Bool = false, remoteAddress: String? = nil, admission: (any Sendable)? = nil)
    {
        self.admission = admission
        self.method = method
        self.path = path
        self.rawQueryItems = rawQueryItems
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.remoteAddress = remoteAddress
    }

    /// The first value of a header, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first(name)
    }

    /// The Host header without its port, in lower case.
    public var host: String? {
        guard let host = header("Host")?.lowercased() else { return nil }
        if host.hasPrefix("[") { return host.split(separator: "]").first.map { $0 + "]" } }
        return host.split(separator: ":").first.map(String.init)
    }

    /// Every decoded value of a query parameter (`+` is a space, percent-escapes decoded).
    public func queryValues(_ name: String) -> [String] {
        rawQueryItems.filter { PercentDecoding.decode($0.name, plusIsSpace: true) == name }.map { PercentDecoding.decode($0.value ?? "", plusIsSpace: true) }
    }

    public func queryValue(_ name: String) -> String? { queryValues(name).first }

    /// The path and query, percent-encoded as the client wrote them (`+` as a space).
    public var target: String {
        guard !rawQueryItems.isEmpty else { return path }
        return path + "?" + rawQueryItems.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }.joined(separator: "&")
    }
}

/// A response: status, header fields and a body given whole or produced in pieces.
public struct HTTPServerResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// Called for each piece until it returns nil; sent chunked. For bodies that are
        /// large, endless or slow on purpose (test fixtures of hostile servers).
        case stream(@Sendable () -> [UInt8]?)
    }

    public var status: Int
    public var headers: [HTTPField]
    public var body: Body

    public init(status: Int, headers: [HTTPField] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [HTTPField] = []) {
        self.init(status: status, headers: [HTTPField("Content-Type", contentType)] + headers, body: .bytes(body))
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPServerResponse {
        HTTPServerResponse(status: status, contentType: contentType, body: Array(text.utf8))
    }

    public static func html(_ html: String, status: Int = 200) -> HTTPServerResponse {
        text(html, status: status, contentType: "text/html; charset=utf-8")
    }

    public static func redirect(to location: String, status: Int = 301) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [HTTPField("Location", location)])
    }

    public static let notFound = text("not found\n", status: 404)
}

