/// An absolute `http` or `https` URL in normal form.
///
/// Parsing and relative resolution follow the URL Standard (``URLParser``: the browsers'
/// rules, tested against web-platform-tests' own cases), so a link goes where a browser
/// would send it: hosts through IDNA and the IPv4/IPv6 parsers, the Standard's
/// percent-encode sets per component, dot segments including `%2e`, the default port
/// dropped. On top of the Standard's serialization the stored form folds escapes — upper
/// case, unreserved characters decoded — so that equal resources compare equal.
///
/// The fragment is kept (see ``withoutFragment``); crawl policy such as dropping
/// tracking parameters is not this type's business.
public struct WebURL: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The whole URL in normal form.
    public let string: String
    let hostRange: Range<Int>
    private let pathStart: Int
    private let queryStart: Int?
    private let fragmentStart: Int?

    /// Parses an absolute http(s) URL; nil for anything else.
    public init?(_ string: String) {
        guard let record = URLParser.parse(string.utf8, base: nil) else { return nil }
        self.init(record: record)
    }

    /// The URL a parsed record serializes to, in normal form.
    init(record: URLParser.Record) {
        let text = String(decoding: URLNormalization.normalForm(record.serialized()), as: UTF8.self)
        var bytes = text
        self = bytes.withUTF8 { WebURL(normalized: text, bytes: $0) }!
    }

    /// Resolves `reference` (an `href` value, say) against `base`.
    public init?(_ reference: String, relativeTo base: WebURL) {
        guard let url = URLResolver(base: base).resolve(reference) else { return nil }
        self = url
    }

    /// Joins an origin (`scheme://host[:port]`) and a canonical absolute path whose layout
    /// is known, without scanning the result again.
    init(origin: String, hostRange: Range<Int>, canonicalPath: UnsafeBufferPointer<UInt8>, layout: URLNormalization.PathLayout) {
        let originLength = origin.utf8.count
        var origin = origin
        self.string = origin.withUTF8 { originBytes in
            String(unsafeUninitializedCapacity: originBytes.count + canonicalPath.count) { out in
                _ = out.initialize(fromContentsOf: originBytes)
                _ = UnsafeMutableBufferPointer(rebasing: out[originBytes.count...]).initialize(fromContentsOf: canonicalPath)
                return originBytes.count + canonicalPath.count
            }
        }
        self.hostRange = hostRange
        self.pathStart = originLength
        self.queryStart = layout.queryStart.map { $0 + originLength }
        self.fragmentStart = layout.fragmentStart.map { $0 + originLength }
    }

    /// Takes an absolute URL already in normal form whose layout is known.
    init(canonical url: UnsafeBufferPointer<UInt8>, layout: URLNormalization.AbsoluteLayout) {
        let text = String(decoding: url, as: UTF8.self)
        self.string = layout.needsRootPath ? text + "/" : text
        self.hostRange = layout.hostRange
        self.pathStart = layout.pathStart
        self.queryStart = layout.path.queryStart.map { $0 + layout.pathStart }
        self.fragmentStart = layout.path.fragmentStart.map { $0 + layout.pathStart }
    }

    /// Builds from a string already in normal form, locating its parts.
    init?(normalized string: String) {
        var bytes = string
        guard let parsed = bytes.withUTF8({ WebURL(normalized: string, bytes: $0) }) else { return nil }
        self = parsed
    }

    private init?(normalized string: String, bytes utf8: UnsafeBufferPointer<UInt8>) {
        guard let schemeEnd = utf8.firstIndex(of: UInt8(ascii: ":")),
            utf8.count > schemeEnd + 2, utf8[schemeEnd + 1] == UInt8(ascii: "/"), utf8[schemeEnd + 2] == UInt8(ascii: "/")
        else { return nil }
        let authorityStart = schemeEnd + 3
        var pathStart = authorityStart
        while pathStart < utf8.count, utf8[pathStart] != UInt8(ascii: "/"), utf8[pathStart] != UInt8(ascii: "?"),
            utf8[pathStart] != UInt8(ascii: "#")
        {
            pathStart += 1
        }
        var hostStart = authorityStart
        if let at = utf8[authorityStart..<pathStart].lastIndex(of: UInt8(ascii: "@")) { hostStart = at + 1 }
        var hostEnd = pathStart
        if utf8[hostStart..<pathStart].first == UInt8(ascii: "[") {
            hostEnd = (utf8[hostStart..<pathStart].firstIndex(of: UInt8(ascii: "]")) ?? (pathStart - 1)) + 1
        } else if let colon = utf8[hostStart..<pathStart].lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        let fragmentStart = utf8[pathStart...].firstIndex(of: UInt8(ascii: "#"))
        let queryStart = utf8[pathStart..<(fragmentStart ?? utf8.count)].firstIndex(of: UInt8(ascii: "?"))
        self.string = string
        self.hostRange = hostStart..<hostEnd
        self.pathStart = pathStart
        self.queryStart = queryStart
        self.fragmentStart = fragmentStart
    }

    public var description: String { string }

    // Equality and hashing need only the normal form; the offsets follow from it.
    public static func == (lhs: WebURL, rhs: WebURL) -> Bool { lhs.string == rhs.string }
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }

    public static func < (lhs: WebURL, rhs: WebURL) -> Bool { lhs.string < rhs.string }

    private func slice(_ range: Range<Int>) -> String {
        let utf8 = string.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let upper = utf8.index(lower, offsetBy: range.count)
        return String(string[lower..<upper])
    }

    /// `http` or `https`.
    public var scheme: String { string.hasPrefix("https:") ? "https" : "http" }
    public var isHTTPS: Bool { string.hasPrefix("https:") }

    /// The host in lower case and punycode; IPv6 literals keep their brackets.
    public var host: String { slice(hostRange) }

    /// The explicit port, nil when it is the scheme's default.
    public var port: Int? {
        let authorityEnd = pathStart
        guard hostRange.upperBound < authorityEnd else { return nil }
        return Int(slice((hostRange.upperBound + 1)..<authorityEnd))
    }

    /// The port a connection uses.
    public var effectivePort: Int { port ?? (isHTTPS ? 443 : 80) }

    /// `scheme://host[:port]`, the authority a robots.txt file or a politeness queue is kept for.
    public var origin: String {
        slice(0..<pathStart).replacingUserInfo(hostStart: hostRange.lowerBound, schemeLength: scheme.utf8.count)
    }

    /// The path, always starting with `/`.
    public var path: String { slice(pathStart..<(queryStart ?? fragmentStart ?? string.utf8.count)) }

    /// The path's bytes, without making a string of them (for checks run on every link).
    public var pathUTF8: Substring.UTF8View {
        let utf8 = string.utf8
        let lower = utf8.index(utf8.startIndex, offsetBy: pathStart)
        let upper = utf8.index(utf8.startIndex, offsetBy: queryStart ?? fragmentStart ?? utf8.count)
        return string[lower..<upper].utf8
    }

    /// Whether the two URLs have the same scheme, host and port (the bytes before the path
    /// are equal), compared without making strings of them.
    public func hasSameAuthority(as other: WebURL) -> Bool {
        guard pathStart == other.pathStart else { return false }
        return string.utf8.prefix(pathStart).elementsEqual(other.string.utf8.prefix(pathStart))
    }

    /// The query without its `?`, nil when there is none.
    public var query: String? {
        guard let queryStart else { return nil }
        return slice((queryStart + 1)..<(fragmentStart ?? string.utf8.count))
    }

    /// The fragment without its `#`, nil when there is none.
    public var fragment: String? {
        guard let fragmentStart else { return nil }
        return slice((fragmentStart + 1)..<string.utf8.count)
    }

    /// Path and query, as sent in a request line and matched by robots.txt rules.
    public var pathAndQuery: String { slice(pathStart..<(fragmentStart ?? string.utf8.count)) }

    public var withoutFragment: WebURL {
        guard let fragmentStart else { return self }
        return WebURL(normalized: slice(0..<fragmentStart))!
    }

    /// The same URL with another query (nil removes it); the fragment is dropped.
    public func replacingQuery(_ newQuery: String?) -> WebURL {
        let base = slice(0..<(queryStart ?? fragmentStart ?? string.utf8.count))
        guard let newQuery, !newQuery.isEmpty else { return WebURL(normalized: base)! }
        return WebURL(normalized: base + "?" + URLNormalization.normalizeComponent(newQuery, kind: .query))!
    }
}

extension String {
    /// Drops `user:password@` from an authority prefix.
    fileprivate func replacingUserInfo(hostStart: Int, schemeLength: Int) -> String {
        let authorityStart = schemeLength + 3
        guard hostStart > authorityStart else { return self }
        let utf8 = Array(self.utf8)
        return String(decoding: utf8[0..<authorityStart] + utf8[hostStart...], as: UTF8.self)
    }
}

extension WebURL {
    /// True when the authority carries `user[:password]@`: a way to make a URL read as one
    /// host (`https://bank.example@evil.example/`) while naming another.
    public var hasUserInfo: Bool { hostRange.lowerBound > scheme.utf8.count + 3 }
}
