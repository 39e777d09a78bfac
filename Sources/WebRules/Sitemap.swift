import CLibXML2
import FoundationEssentials
import Gzip
import TextUtilities
import WebURL

/// A sitemap (sitemaps.org protocol 0.9): a `<urlset>`, a `<sitemapindex>`, or a plain
/// text list of URLs, gzip-compressed or not.
///
/// Limits and scope from the protocol: at most 50,000 entries and 50 MB uncompressed per
/// file; `<loc>` must be absolute and under 2,048 characters; every URL must share the
/// sitemap's scheme, host and port and sit under its folder (`/catalog/sitemap.xml` may
/// list only `/catalog/…`), unless the host that listed the sitemap in its robots.txt is
/// the URL's (a cross-submit). Entries that break these rules are counted, not kept.
public struct Sitemap: Sendable {
    public static let maximumEntries = 50_000
    public static let maximumBytes = 50 * 1024 * 1024
    public static let maximumURLLength = 2048

    public enum Kind: String, Sendable {
        case urlset, index, text
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
    /// URLs (for `urlset` and `text`) or sitemap URLs (for `index`).
    public var entries: [Entry]
    /// Entries left out, by reason: `out-of-scope`, `invalid-url`, `over-limit`.
    public var skipped: [String: Int]
    /// Why the file could not be read, when it could not.
    public var error: String?

    /// Reads a sitemap fetched from `url`. `crossSubmitOrigins` are origins whose
    /// robots.txt named this sitemap, whose URLs it may therefore list.
    public init(parsing body: [UInt8], url: WebURL, crossSubmitOrigins: Set<String> = []) {
        kind = .urlset
        entries = []
        skipped = [:]
        var bytes = body
        if Gzip.isCompressed(bytes) {
            do {
                bytes = try Gzip.decompress(bytes, limit: Self.maximumBytes)
            } catch {
                self.error = "gzip: \(error.message)"
                return
            }
        }
        guard bytes.count <= Self.maximumBytes else {
            self.error = "larger than \(Self.maximumBytes) bytes uncompressed"
            return
        }
        let scope = Scope(sitemap: url, crossSubmitOrigins: crossSubmitOrigins)
        let firstByte = bytes.drop { isASCIIWhitespace($0) || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }.first
        if firstByte == UInt8(ascii: "<") {
            parseXML(bytes, base: url, scope: scope)
        } else {
            kind = .text
            for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
                let text = line.trimmingASCIIWhitespace()
                guard !text.isEmpty else { continue }
                add(location: text, lastModified: nil, changeFrequency: nil, priority: nil, scope: scope)
            }
        }
    }

    private mutating func add(location: String, lastModified: String?, changeFrequency: String?, priority: String?, scope: Scope) {
        guard entries.count < Self.maximumEntries else {
            skipped["over-limit", default: 0] += 1
            return
        }
        guard location.utf8.count < Self.maximumURLLength, let url = WebURL(location) else {
            skipped["invalid-url", default: 0] += 1
            return
        }
        guard kind == .index || scope.contains(url) else {
            skipped["out-of-scope", default: 0] += 1
            return
        }
        entries.append(Entry(
            location: url.withoutFragment,
            lastModified: lastModified.flatMap(Self.parseDate),
            changeFrequency: changeFrequency.flatMap { ChangeFrequency(rawValue: $0.trimmingASCIIWhitespace().lowercased()) },
            priority: priority.flatMap { Double($0.trimmingASCIIWhitespace()) }.map { min(max($0, 0), 1) } ?? 0.5))
    }

    /// W3C datetime: `2026-11-29`, `2026-11-29T10:00+01:00`, `2026-11-29T10:00:00.5Z`…
    static func parseDate(_ text: String) -> Date? {
        ISO8601.seconds(from: text.trimmingASCIIWhitespace()).map(Date.init(timeIntervalSince1970:))
    }

    /// Reads `<urlset>`/`<sitemapindex>` with libxml2's pull parser, element names by
    /// local name so a missing or different namespace does not matter. Entities are not
    /// expanded and the network is never touched.
    private mutating func parseXML(_ bytes: [UInt8], base: WebURL, scope: Scope) {
        let options = Int32(XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let reader: xmlTextReaderPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { xmlReaderForMemory($0.baseAddress, Int32($0.count), base.string, nil, options) }
        }
        guard let reader else {
            error = "not XML"
            return
        }
        defer { xmlFreeTextReader(reader) }
        var field: String?
        var values: [String: String] = [:]
        var text = ""
        var depth = 0
        while xmlTextReaderRead(reader) == 1 {
            let type = xmlTextReaderNodeType(reader)
            let name = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
            switch type {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                depth += 1
                if depth == 1 {
                    if name == "sitemapindex" { kind = .index } else if name != "urlset" {
                        error = "the root element is <\(name)>, not <urlset> or <sitemapindex>"
                        return
                    }
                } else if name == "url" || name == "sitemap" {
                    values = [:]
                } else if ["loc", "lastmod", "changefreq", "priority"].contains(name), depth == 3 {
                    field = name
                    text = ""
                }
                if xmlTextReaderIsEmptyElement(reader) == 1 { depth -= 1 }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                if field != nil, let value = xmlTextReaderConstValue(reader) { text += String(cString: value) }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                if let current = field, name == current {
                    values[current] = text.trimmingASCIIWhitespace()
                    field = nil
                } else if (name == "url" || name == "sitemap") && depth == 2, let location = values["loc"] {
                    add(location: location, lastModified: values["lastmod"], changeFrequency: values["changefreq"],
                        priority: values["priority"], scope: scope)
                }
                depth -= 1
            default:
                continue
            }
        }
        if entries.isEmpty, skipped.isEmpty, depth != 0 { error = "malformed XML" }
    }

    /// Which URLs a sitemap may list.
    struct Scope {
        let origin: String
        let folder: String
        let crossSubmitOrigins: Set<String>

        init(sitemap: WebURL, crossSubmitOrigins: Set<String>) {
            origin = sitemap.origin
            let path = sitemap.path
            folder = String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
            self.crossSubmitOrigins = crossSubmitOrigins
        }

        func contains(_ url: WebURL) -> Bool {
            if crossSubmitOrigins.contains(url.origin) { return true }
            return url.origin == origin && url.path.hasPrefix(folder)
        }
    }
}
