/// A header field of a request or response.
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One request, read completely before the handler runs.
public struct HTTPServerRequest: Sendable {
    public var method: String
    /// The path as sent, still percent-encoded.
    public var path: String
    /// Query parameters in order, still percent-encoded; see ``queryValue(_:)``.
    public var rawQueryItems: [(name: String, value: String?)]
    public var headers: [HTTPField]
    public var body: [UInt8]
    /// True when the body was larger than the server accepts; ``body`` is then empty.
    public var bodyTooLarge: Bool
    public var remoteAddress: String?

    public init(method: String, path: String, rawQueryItems: [(name: String, value: String?)] = [], headers: [HTTPField] = [],
                body: [UInt8] = [], bodyTooLarge: Bool = false, remoteAddress: String? = nil)
    {
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
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The Host header without its port, in lower case.
    public var host: String? {
        guard let host = header("Host")?.lowercased() else { return nil }
        if host.hasPrefix("[") { return host.split(separator: "]").first.map { $0 + "]" } }
        return host.split(separator: ":").first.map(String.init)
    }

    /// Every decoded value of a query parameter (`+` is a space, percent-escapes decoded).
    public func queryValues(_ name: String) -> [String] {
        rawQueryItems.filter { PercentDecoding.decode($0.name) == name }.map { PercentDecoding.decode($0.value ?? "") }
    }

    public func queryValue(_ name: String) -> String? { queryValues(name).first }

    /// The path and query as the client wrote them.
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

/// Percent-decoding for query strings (`application/x-www-form-urlencoded`).
public enum PercentDecoding {
    public static func decode(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2, let hi = hex(iterator[iterator.startIndex]),
                let lo = hex(iterator[iterator.startIndex + 1])
            {
                bytes.append(hi << 4 | lo)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
