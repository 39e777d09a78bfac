import FoundationEssentials
import Gzip
import TextUtilities
import WebURL

/// A sitemap (sitemaps.org protocol 0.9): a `<urlset>`, a `<sitemapindex>`, a plain text
/// list of URLs, or a feed (RSS 2.0, RSS 1.0/RDF, Atom 0.3 and 1.0, which the protocol
/// accepts as sitemaps), gzip-compressed or not.
///
/// Limits from the protocol: at most 50,000 entries and 50 MB uncompressed per file;
/// locations absolute and under 2,048 characters. Scope: every URL must share the sitemap's
/// scheme, host and port, and — unless the host itself listed the sitemap (its robots.txt
/// names it, or an index it names leads to it) — sit under the sitemap's folder
/// (`/catalog/sitemap.xml` may list only `/catalog/…`); a host whose robots.txt names the
/// sitemap may be listed too (a cross-submit). Big sites keep their sitemaps in one folder
/// and list the whole site from there, which is why a host-listed sitemap is not held to
/// the folder (StormCrawler turned the strict rule off for the same reason); such entries
/// are counted in ``outsideFolder``.
///
/// Read as leniently as crawler-commons' lenient mode: a byte-order mark and whitespace
/// before the XML declaration, any namespace or none, a location given as the entry's bare
/// text, several locations in one entry, locations wrapped in Unicode whitespace, and a cut
/// document (a truncated file or gzip stream) keeping every entry read before the cut.
/// Entries left out are counted by reason.
public struct Sitemap: Sendable {
    public static let maximumEntries = 50_000
    public static let maximumBytes = 50 * 1024 * 1024
    public static let maximumURLLength = 2048
    /// Where sites keep a sitemap they do not name in robots.txt, tried when it names none:
    /// the protocol's own example, the index name of the common WordPress and CMS plugins
    /// (both spellings), and WordPress's built-in sitemap.
    public static let wellKnownPaths = ["/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/wp-sitemap.xml"]

    public enum Kind: String, Sendable {
        case urlset, index, text, feed
    }

    public enum ChangeFrequency: String, Sendable, CaseIterable {
        case always, hourly, daily, weekly, monthly, yearly, never

        /// The interval the frequency names, in seconds (`always` as an hour, `never` as a year).
        public var interval: TimeInterval {
            switch self {
            case .always, .hourly: return 3600
            case .daily: return 86_400
            case .weekly: return 7 * 86_400
            case .monthly: return 30 * 86_400
            case .yearly, .never: return 365 * 86_400
            }
        }
    }

    public struct Entry: Sendable, Hashable {
        public var location: WebURL
        public var lastModified: Date?
        public var changeFrequency: ChangeFrequency?
        /// 0.0–1.0; 0.5 when the sitemap says nothing.
        public var priority: Double
    }

    public var kind: Kind
    /// URLs (for `urlset`, `text` and `feed`) or sitemap URLs (for `index`).
    public var entries: [Entry]
    /// Entries left out, by reason: `out-of-scope`, `invalid-url`, `over-limit`,
    /// `no-location` (an entry without one).
    public var skipped: [String: Int]
    /// Entries of a host-listed sitemap outside its folder: kept, and worth a warning.
    public var outsideFolder = 0
    /// True when the document (or its gzip stream) was cut short; what came before is kept.
    public var truncated = false
    /// Why the file could not be read, when it could not.
    public var error: String?

    /// Reads a sitemap fetched from `url`. `crossSubmitOrigins` are origins whose
    /// robots.txt named this sitemap, whose URLs it may therefore list; `listedByHost`: the
    /// sitemap's own host named it (robots.txt, or an index that host named), so it may list
    /// any URL of the host.
    public init(parsing body: [UInt8], url: WebURL, crossSubmitOrigins: Set<String> = [], listedByHost: Bool = false) {
        kind = .urlset
        entries = []
        skipped = [:]
        var bytes = body
        if Gzip.isCompressed(bytes) {
            do {
                let inflated = try Gzip.decompressPrefix(bytes, limit: Self.maximumBytes)
                bytes = inflated.bytes
                truncated = !inflated.complete
                if bytes.isEmpty, truncated {
                    self.error = "gzip: corrupt or truncated before any data"
                    return
                }
            } catch {
                self.error = "gzip: \(error.message)"
                return
            }
        }
        guard bytes.count <= Self.maximumBytes else {
            self.error = "larger than \(Self.maximumBytes) bytes uncompressed"
            return
        }
        let scope = Scope(sitemap: url, crossSubmitOrigins: crossSubmitOrigins, listedByHost: listedByHost)
        // A byte-order mark and whitespace may come before the document (the XML
        // declaration must then be the first thing libxml2 sees).
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        while start < bytes.count, isASCIIWhitespace(bytes[start]) { start += 1 }
        if start < bytes.count, bytes[start] == UInt8(ascii: "<") {
            parseXML(bytes[start...], base: url, scope: scope)
        } else {
            kind = .text
            for line in String(decoding: bytes[start...], as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
                let text = Self.trimmed(line)
                guard !text.isEmpty else { continue }
                add(location: text, lastModified: nil, changeFrequency: nil, priority: nil, scope: scope)
            }
        }
    }

    private mutating func add(location: String, lastModified: Date?, changeFrequency: String?, priority: String?, scope: Scope) {
        guard entries.count < Self.maximumEntries else {
            skipped["over-limit", default: 0] += 1
            return
        }
        guard location.utf8.count < Self.maximumURLLength, let url = WebURL(location) else {
            skipped["invalid-url", default: 0] += 1
            return
        }
        if kind != .index {
            switch scope.admits(url) {
            case .no:
                skipped["out-of-scope", default: 0] += 1
                return
            case .outsideFolder:
                outsideFolder += 1
            case .yes:
                break
            }
        }
        entries.append(Entry(
            location: url.withoutFragment,
            lastModified: lastModified,
            changeFrequency: changeFrequency.flatMap { ChangeFrequency(rawValue: $0.trimmingASCIIWhitespace().lowercased()) },
            priority: priority.flatMap { Double($0.trimmingASCIIWhitespace()) }.map { min(max($0, 0), 1) } ?? 0.5))
    }

    /// W3C datetime: `2026-11-29`, `2026-11-29T10:00+01:00`, `2026-11-29T10:00:00.5Z`…; feeds'
    /// RFC 822 dates (`Sat, 07 Sep 2002 00:00:01 GMT`) as HTTP dates are read.
    static func parseDate(_ text: String) -> Date? {
        let text = text.trimmingASCIIWhitespace()
        if let seconds = ISO8601.seconds(from: text) ?? HTTPDate.seconds(from: text) { return Date(timeIntervalSince1970: seconds) }
        return nil
    }

    /// `text` without the Unicode whitespace around it (U+00A0, U+3000, a BOM…).
    static func trimmed<S: StringProtocol>(_ text: S) -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0.properties.isWhitespace || $0 == "\u{FEFF}" || $0 == "\u{200B}" }
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars[first...last])
        return result
    }

    /// Reads the XML forms (``SitemapXMLReader``) and adds each entry's locations.
    private mutating func parseXML(_ bytes: ArraySlice<UInt8>, base: WebURL, scope: Scope) {
        let reader = SitemapXMLReader(base: base)
        reader.read(bytes)
        guard let kind = reader.kind else {
            error = reader.rootName.isEmpty ? "not XML"
                : "the root element is <\(reader.rootName)>, not <urlset>, <sitemapindex>, <rss> or <feed>"
            return
        }
        self.kind = kind
        truncated = truncated || reader.truncated
        for entry in reader.entries {
            var locations = entry.locations
            let bare = Self.trimmed(entry.bareText)
            if locations.isEmpty, let guid = entry.guid, WebURL(guid) != nil { locations = [guid] }
            if locations.isEmpty, !bare.isEmpty { locations = [bare] }
            guard !locations.isEmpty else {
                skipped["no-location", default: 0] += 1
                continue
            }
            let date = entry.lastModified.flatMap(Self.parseDate)
            for location in locations + entry.alternates {
                add(location: location, lastModified: date, changeFrequency: entry.changeFrequency, priority: entry.priority, scope: scope)
            }
        }
        if reader.overflow > 0 { skipped["over-limit", default: 0] += reader.overflow }
        if entries.isEmpty, skipped.isEmpty, truncated { error = "malformed XML" }
    }

    /// Which URLs a sitemap may list.
    struct Scope {
        enum Verdict { case yes, outsideFolder, no }

        let origin: String
        let folder: String
        let crossSubmitOrigins: Set<String>
        let listedByHost: Bool

        init(sitemap: WebURL, crossSubmitOrigins: Set<String>, listedByHost: Bool) {
            origin = sitemap.origin
            let path = sitemap.path
            folder = String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
            self.crossSubmitOrigins = crossSubmitOrigins
            self.listedByHost = listedByHost
        }

        func admits(_ url: WebURL) -> Verdict {
            if crossSubmitOrigins.contains(url.origin) { return .yes }
            guard url.origin == origin else { return .no }
            if url.path.hasPrefix(folder) { return .yes }
            return listedByHost ? .outsideFolder : .no
        }
    }
}
