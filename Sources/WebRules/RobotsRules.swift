import FoundationEssentials
import TextUtilities
import WebURL

/// robots.txt for one origin, read per RFC 9309 for one product token.
///
/// - Every group whose user-agent names our token (case-insensitively, ignoring a
///   `/version`) is merged; failing that, every `*` group; failing that, nothing is
///   restricted. A specific group does not inherit `*`.
/// - The longest matching rule wins (in octets); an allow wins a tie; no match allows.
///   `*` matches any run of characters, a final `$` anchors the end; `%2A` and `%24` are a
///   literal `*` and `$`. Paths and patterns are compared percent-encoding-normalised.
/// - `/robots.txt` is always allowed. Only the first 500 KiB are read; a BOM is skipped.
/// - A 4xx answer means allow all; 5xx or no answer means disallow all (``unreachable``).
/// - `Crawl-delay` (not in the RFC, widely used) is read from the chosen groups, capped at
///   ``maximumCrawlDelay``; `Sitemap` lines are collected wherever they are.
public struct RobotsRules: Sendable, Hashable {
    public static let maximumBytes = 500 * 1024
    public static let maximumCrawlDelay = 30.0

    public enum Access: String, Sendable, Hashable {
        /// Rules were read from the file (which may restrict nothing).
        case rules
        /// 4xx: no robots.txt, everything is allowed.
        case allowAll = "allow-all"
        /// 5xx or unreachable: nothing may be fetched.
        case disallowAll = "disallow-all"
    }

    public struct Rule: Sendable, Hashable {
        public var allow: Bool
        /// The pattern as normalised for matching.
        public var pattern: String
    }

    public var access: Access
    public var rules: [Rule]
    public var crawlDelay: Double?
    /// Absolute sitemap URLs from `Sitemap:` lines.
    public var sitemaps: [String]

    public init(access: Access, rules: [Rule] = [], crawlDelay: Double? = nil, sitemaps: [String] = []) {
        self.access = access
        self.rules = rules
        self.crawlDelay = crawlDelay
        self.sitemaps = sitemaps
    }

    public static let allowAll = RobotsRules(access: .allowAll)
    public static let unreachable = RobotsRules(access: .disallowAll)

    /// The rules that follow from an HTTP status when the file could not be read as rules.
    public static func forStatus(_ status: Int) -> RobotsRules {
        (400..<500).contains(status) ? .allowAll : .unreachable
    }

    /// Parses a robots.txt body for `productToken` (e.g. `searchlightbot`).
    public init(parsing body: [UInt8], productToken: String, robotsURL: WebURL? = nil) {
        var bytes = body.prefix(Self.maximumBytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text = String(decoding: bytes, as: UTF8.self)
        let token = productToken.lowercased()

        struct Group {
            var agents: [String] = []
            var rules: [Rule] = []
            var crawlDelay: Double?
        }
        var groups: [Group] = []
        var current: Group?
        var sawRuleInCurrent = false
        var sitemaps: [String] = []

        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingASCIIWhitespace().lowercased()
            let value = line[line.index(after: colon)...].trimmingASCIIWhitespace()
            switch key {
            case "user-agent", "useragent", "user agent":
                if current == nil || sawRuleInCurrent {
                    if let finished = current { groups.append(finished) }
                    current = Group()
                    sawRuleInCurrent = false
                }
                current?.agents.append(Self.productToken(of: value))
            case "allow", "disallow", "dissallow", "disalow", "diasllow", "disallaw":
                guard current != nil else { continue }  // rules before any user-agent are ignored
                sawRuleInCurrent = true
                guard !value.isEmpty else { continue }  // "Disallow:" with no value allows everything
                current?.rules.append(Rule(allow: key == "allow", pattern: Self.normalizePattern(value)))
            case "crawl-delay", "crawldelay":
                guard current != nil else { continue }
                sawRuleInCurrent = true
                if let delay = Double(value), delay >= 0, delay.isFinite { current?.crawlDelay = delay }
            case "sitemap", "site-map":
                // Sitemap lines belong to no group and do not end one.
                let resolved = robotsURL.flatMap { WebURL(value, relativeTo: $0) } ?? WebURL(value)
                if let url = resolved?.string, !sitemaps.contains(url) { sitemaps.append(url) }
            default:
                continue
            }
        }
        if let finished = current { groups.append(finished) }

        var chosen = groups.filter { $0.agents.contains(token) }
        if chosen.isEmpty { chosen = groups.filter { $0.agents.contains("*") } }
        self.access = .rules
        self.rules = chosen.flatMap(\.rules)
        self.crawlDelay = chosen.compactMap(\.crawlDelay).max().map { min($0, Self.maximumCrawlDelay) }
        self.sitemaps = sitemaps
    }

    /// The product token of a user-agent value: its leading letters, `_` and `-`.
    static func productToken(of value: String) -> String {
        if value.hasPrefix("*") { return "*" }
        return String(value.prefix { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }).lowercased()
    }

    /// May `url` be fetched?
    public func allows(_ url: WebURL) -> Bool {
        allows(pathAndQuery: url.pathAndQuery)
    }

    public func allows(pathAndQuery: String) -> Bool {
        switch access {
        case .allowAll: return true
        case .disallowAll: return pathAndQuery == "/robots.txt"
        case .rules: break
        }
        if pathAndQuery == "/robots.txt" { return true }
        let path = Self.normalizePath(pathAndQuery)
        var best: (length: Int, allow: Bool)?
        for rule in rules {
            guard let length = Self.matchLength(rule.pattern, path) else { continue }
            if let current = best {
                if length > current.length || (length == current.length && rule.allow && !current.allow) {
                    best = (length, rule.allow)
                }
            } else {
                best = (length, rule.allow)
            }
        }
        return best?.allow ?? true
    }

    // MARK: matching

    /// The pattern's length in octets when it matches `path` from its start, else nil.
    /// `*` (wildcard) and a final `$` (anchor) are special; the escapes `%2A` and `%24`
    /// were turned into bytes 0x01 and 0x02 by ``normalizePattern(_:)`` and match `*`, `$`.
    static func matchLength(_ pattern: String, _ path: String) -> Int? {
        let p = Array(pattern.utf8)
        let s = Array(path.utf8)
        let anchored = p.last == UInt8(ascii: "$")
        let body = anchored ? Array(p.dropLast()) : p
        // positions[k] is true when the pattern so far can end at path offset k.
        var positions = [Bool](repeating: false, count: s.count + 1)
        positions[0] = true
        for c in body {
            if c == UInt8(ascii: "*") {
                if let first = positions.firstIndex(of: true) {
                    for k in first...s.count { positions[k] = true }
                }
                continue
            }
            let literal = c == 0x01 ? UInt8(ascii: "*") : c == 0x02 ? UInt8(ascii: "$") : c
            var next = [Bool](repeating: false, count: s.count + 1)
            var any = false
            for k in 0..<s.count where positions[k] && s[k] == literal {
                next[k + 1] = true
                any = true
            }
            guard any else { return nil }
            positions = next
        }
        if anchored { return positions[s.count] ? p.count : nil }
        return positions.contains(true) ? p.count : nil
    }

    /// Percent-encoding normal form for paths (RFC 9309 §2.2.2: unreserved characters
    /// decoded, everything outside US-ASCII encoded), the one ``WebURL`` keeps.
    static func normalizePath(_ path: String) -> String {
        PercentEncoding.normalized(path)
    }

    /// A pattern in the same normal form; `%2A` and `%24` become placeholders for a
    /// literal `*` and `$`, and a pattern not starting with `/` or `*` gets a `/`.
    static func normalizePattern(_ pattern: String) -> String {
        var value = pattern
        if let first = value.first, first != "/", first != "*" { value = "/" + value }
        let normalized = normalizePath(value)
        return normalized.replacing("%2A", with: "\u{01}").replacing("%24", with: "\u{02}")
    }
}
