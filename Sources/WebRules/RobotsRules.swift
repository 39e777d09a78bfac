import FoundationEssentials
import TextUtilities
import WebURL

/// robots.txt for one origin, read per RFC 9309 for one product token.
///
/// - Every group whose user-agent names our token (case-insensitively, ignoring a
///   `/version`) is merged; failing that, every `*` group; failing that, nothing is
///   restricted. A specific group does not inherit `*`. A group is its user-agent lines
///   and the rules after them: only an `allow` or `disallow` line ends the run of
///   user-agent lines (§2.1: "other records … MUST NOT be interpreted as starting a new
///   group"), so a `crawl-delay` between two user-agent lines leaves them one group.
/// - The longest matching rule wins (in octets, as written); an allow wins a tie; no match
///   allows. `*` matches any run of characters, a final `$` anchors the end; `%2A` and
///   `%24` are a literal `*` and `$`, written either way in the path. Paths and patterns
///   are compared percent-encoding-normalised.
/// - The file is read as bytes: lines end at LF, CR or CRLF, `#` starts a comment, the
///   first `:` separates key and value. `/robots.txt` is always allowed. Only the first
///   500 KiB are read, and a line cut by that limit is dropped; a BOM is skipped.
/// - A 4xx answer means allow all; 5xx or no answer means disallow all (``unreachable``).
/// - `Crawl-delay` (not in the RFC, widely used) is read from the chosen groups, capped at
///   ``maximumCrawlDelay``; `Sitemap` lines are collected wherever they are, the first
///   ``maximumSitemaps``.
public struct RobotsRules: Sendable, Hashable {
    public static let maximumBytes = 500 * 1024
    public static let maximumCrawlDelay = 30.0
    /// `Sitemap:` lines read from one robots.txt: the first 50. A sitemap index lists up to
    /// 50,000 sitemaps, so a site needs few lines here; one with hundreds is listing one
    /// sitemap per page or sending a crawler on an errand (each named sitemap is a fetch).
    public static let maximumSitemaps = 50

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
        /// The line of the file it was read from, counting from 1.
        public var line: Int

        public init(allow: Bool, pattern: String, line: Int) {
            self.allow = allow
            self.pattern = pattern
            self.line = line
        }
    }

    /// Whether a path may be fetched, and the rule that decided (nil: no rule matched, or
    /// the file's status decided).
    public struct Verdict: Sendable, Hashable {
        public var allowed: Bool
        public var rule: Rule?
    }

    public var access: Access
    public var rules: [Rule]
    public var crawlDelay: Double?
    /// Absolute sitemap URLs from `Sitemap:` lines.
    public var sitemaps: [String]
    /// The user-agent whose groups apply: our token, `*`, or nil when none names either.
    public var group: String?

    public init(access: Access, rules: [Rule] = [], crawlDelay: Double? = nil, sitemaps: [String] = [], group: String? = nil) {
        self.access = access
        self.rules = rules
        self.crawlDelay = crawlDelay
        self.sitemaps = sitemaps
        self.group = group
    }

    public static let allowAll = RobotsRules(access: .allowAll)
    public static let unreachable = RobotsRules(access: .disallowAll)

    /// The rules that follow from an HTTP status when the file could not be read as rules.
    public static func forStatus(_ status: Int) -> RobotsRules {
        (400..<500).contains(status) ? .allowAll : .unreachable
    }

    /// What of a body is read: at most ``maximumBytes``, and when the file is longer, only
    /// up to the last line end within them (a cut line could say `Allow: /p` for
    /// `Allow: /public-docs`).
    public static func readable(_ body: [UInt8]) -> ArraySlice<UInt8> {
        guard body.count > maximumBytes else { return body[...] }
        let prefix = body.prefix(maximumBytes)
        guard let end = prefix.lastIndex(where: { $0 == 0x0A || $0 == 0x0D }) else { return prefix.prefix(0) }
        return prefix[...end]
    }

    /// Parses a robots.txt body for `productToken` (e.g. `searchlightbot`).
    public init(parsing body: [UInt8], productToken: String, robotsURL: WebURL? = nil) {
        var bytes = Self.readable(body)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
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

        Self.forEachLine(bytes) { number, line in
            // A comment runs from `#` to the end of the line; the key ends at the first `:`.
            let content = line.prefix { $0 != UInt8(ascii: "#") }
            guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return }
            let key = String(decoding: content[..<colon], as: UTF8.self).trimmingASCIIWhitespace().lowercased()
            let value = String(decoding: content[(colon + 1)...], as: UTF8.self).trimmingASCIIWhitespace()
            switch key {
            case "user-agent", "useragent", "user agent":
                if current == nil || sawRuleInCurrent {
                    if let finished = current { groups.append(finished) }
                    current = Group()
                    sawRuleInCurrent = false
                }
                current?.agents.append(Self.productToken(of: value))
            case "allow", "disallow", "dissallow", "disalow", "diasllow", "disallaw":
                guard current != nil else { return }  // rules before any user-agent are ignored
                sawRuleInCurrent = true
                guard !value.isEmpty else { return }  // "Disallow:" with no value allows everything
                current?.rules.append(Rule(allow: key == "allow", pattern: Self.normalizePattern(value), line: number))
            case "crawl-delay", "crawldelay":
                // Not a rule: it belongs to the group but does not end its user-agent lines.
                guard current != nil else { return }
                if let delay = Double(value), delay >= 0, delay.isFinite { current?.crawlDelay = delay }
            case "sitemap", "site-map":
                // Sitemap lines belong to no group and do not end one.
                let resolved = robotsURL.flatMap { WebURL(value, relativeTo: $0) } ?? WebURL(value)
                if sitemaps.count < Self.maximumSitemaps, let url = resolved?.string, !sitemaps.contains(url) { sitemaps.append(url) }
            default:
                return
            }
        }
        if let finished = current { groups.append(finished) }

        var chosen = groups.filter { $0.agents.contains(token) }
        group = chosen.isEmpty ? nil : token
        if chosen.isEmpty {
            chosen = groups.filter { $0.agents.contains("*") }
            if !chosen.isEmpty { group = "*" }
        }
        self.access = .rules
        self.rules = chosen.flatMap(\.rules)
        self.crawlDelay = chosen.compactMap(\.crawlDelay).max().map { min($0, Self.maximumCrawlDelay) }
        self.sitemaps = sitemaps
    }

    /// Calls `body` with each line's number (from 1) and bytes; LF, CR and CRLF end lines.
    private static func forEachLine(_ bytes: ArraySlice<UInt8>, _ body: (Int, ArraySlice<UInt8>) -> Void) {
        var number = 1
        var start = bytes.startIndex
        var i = start
        while i < bytes.endIndex {
            let byte = bytes[i]
            guard byte == 0x0A || byte == 0x0D else {
                i += 1
                continue
            }
            body(number, bytes[start..<i])
            number += 1
            i += byte == 0x0D && i + 1 < bytes.endIndex && bytes[i + 1] == 0x0A ? 2 : 1
            start = i
        }
        if start < bytes.endIndex { body(number, bytes[start...]) }
    }

    /// The product token of a user-agent value: its leading letters, `_` and `-`.
    static func productToken(of value: String) -> String {
        if value.hasPrefix("*") { return "*" }
        return String(value.prefix { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }).lowercased()
    }

    /// May `url` be fetched?
    public func allows(_ url: WebURL) -> Bool {
        verdict(pathAndQuery: url.pathAndQuery).allowed
    }

    public func allows(pathAndQuery: String) -> Bool {
        verdict(pathAndQuery: pathAndQuery).allowed
    }

    /// The decision for a path (with its query) and the rule that made it.
    public func verdict(pathAndQuery: String) -> Verdict {
        switch access {
        case .allowAll: return Verdict(allowed: true)
        case .disallowAll: return Verdict(allowed: pathAndQuery == "/robots.txt")
        case .rules: break
        }
        if pathAndQuery == "/robots.txt" { return Verdict(allowed: true) }
        let path = Self.normalizePath(pathAndQuery)
        var best: (length: Int, rule: Rule)?
        for rule in rules {
            guard let length = Self.matchLength(rule.pattern, path) else { continue }
            if let current = best {
                if length > current.length || (length == current.length && rule.allow && !current.rule.allow) {
                    best = (length, rule)
                }
            } else {
                best = (length, rule)
            }
        }
        return Verdict(allowed: best?.rule.allow ?? true, rule: best?.rule)
    }

    // MARK: matching

    /// The pattern's length in octets when it matches `path` from its start, else nil.
    /// `*` (wildcard) and a final `$` (anchor) are special; `%2A` and `%24` in the pattern
    /// match a literal `*` or `$` in the path, raw or escaped.
    static func matchLength(_ pattern: String, _ path: String) -> Int? {
        let p = Array(pattern.utf8)
        let s = Array(path.utf8)
        let anchored = p.last == UInt8(ascii: "$")
        let body = anchored ? p.dropLast() : p[...]
        func escape(at k: Int, _ hi: UInt8, _ lo: UInt8) -> Bool {
            k + 2 < s.count && s[k] == UInt8(ascii: "%") && s[k + 1] == hi && s[k + 2] == lo
        }
        // positions[k] is true when the pattern so far can end at path offset k.
        var positions = [Bool](repeating: false, count: s.count + 1)
        positions[0] = true
        var i = body.startIndex
        while i < body.endIndex {
            let c = body[i]
            if c == UInt8(ascii: "*") {
                if let first = positions.firstIndex(of: true) {
                    for k in first...s.count { positions[k] = true }
                }
                i += 1
                continue
            }
            var next = [Bool](repeating: false, count: s.count + 1)
            var any = false
            if c == UInt8(ascii: "%"), i + 2 < body.endIndex, body[i + 1] == UInt8(ascii: "2"),
                body[i + 2] == UInt8(ascii: "A") || body[i + 2] == UInt8(ascii: "4")
            {
                // `%2A` / `%24`: a literal `*` / `$`, one byte raw or three escaped.
                let raw = body[i + 2] == UInt8(ascii: "A") ? UInt8(ascii: "*") : UInt8(ascii: "$")
                for k in 0..<s.count where positions[k] {
                    if s[k] == raw { next[k + 1] = true; any = true }
                    if escape(at: k, UInt8(ascii: "2"), body[i + 2]) { next[k + 3] = true; any = true }
                }
                i += 3
            } else {
                for k in 0..<s.count where positions[k] && s[k] == c {
                    next[k + 1] = true
                    any = true
                }
                i += 1
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

    /// A pattern in the same normal form (so `%2a` is `%2A`); a pattern not starting with
    /// `/` or `*` gets a `/`.
    static func normalizePattern(_ pattern: String) -> String {
        var value = pattern
        if let first = value.first, first != "/", first != "*" { value = "/" + value }
        return normalizePath(value)
    }
}
