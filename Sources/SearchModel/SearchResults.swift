#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ItemModel
import JSON

/// What to search for and for whom.
public struct SearchRequest: Sendable {
    public var text: String
    public var limit: Int
    /// Results skipped before the first one returned (paging); `offset + limit` is at most
    /// ``Limits/results``.
    public var offset = 0
    public var platform: AppTarget.Platform
    /// App Store ids, bundle ids and package names of the apps the person has.
    public var installed: Set<String>
    /// Compute highlighted snippets (markers `\u{2}` … `\u{3}` around matches).
    public var snippets: Bool
    /// The person is still typing: the last word also matches the words it begins
    /// (search-as-you-type). A finished query matches whole words only.
    public var typing = false
    public var now: Date
    /// Only items that pass this (``SearchFilter``).
    public var filter = SearchFilter()
    /// Facets to count over the matches (``FacetCounts``).
    public var facets = Set<Facet>()
    /// The order of the results (``SearchSort``).
    public var sort = SearchSort.relevance

    public init(_ text: String, limit: Int = 10, platform: AppTarget.Platform = .ios, installed: Set<String> = [],
                snippets: Bool = false, now: Date = Date())
    {
        self.text = text
        self.limit = limit
        self.platform = platform
        self.installed = installed
        self.snippets = snippets
        self.now = now
    }

    public static let snippetStart = "\u{2}"
    public static let snippetEnd = "\u{3}"

    /// What one search may ask for. A service may hold its clients to fewer results
    /// (``validate(maximumResults:)``); the rest is the same everywhere.
    public enum Limits {
        public static let results = 1000
        /// A query may be a pasted paragraph: this many characters.
        public static let queryCharacters = 4096
        public static let installedApps = 64
        public static let installedAppBytes = 256
    }

    /// Checks the request against ``Limits``; the query text is checked by ``SearchQuery``.
    public func validate(maximumResults: Int = Limits.results) throws(SearchIndexError) {
        let maximum = min(maximumResults, Limits.results)
        guard (1...maximum).contains(limit) else {
            throw .invalidQuery("limit must be a whole number from 1 to \(maximum)")
        }
        guard offset >= 0, offset + limit <= Limits.results else {
            throw .invalidQuery("offset must be a whole number from 0, with offset + limit at most \(Limits.results)")
        }
        guard installed.count <= Limits.installedApps else {
            throw .invalidQuery("at most \(Limits.installedApps) installed apps")
        }
        if let long = installed.first(where: { $0.utf8.count > Limits.installedAppBytes || $0.isEmpty }) {
            throw .invalidQuery("an installed app id is empty or longer than \(Limits.installedAppBytes) bytes: \(long.prefix(40))…")
        }
        try filter.validate()
        if sort == .distance, filter.near == nil { throw .invalidQuery("sort=distance needs near=latitude,longitude") }
        if let apps = filter.openedBy, apps.count > Limits.installedApps { throw .invalidQuery("at most \(Limits.installedApps) installed apps") }
    }
}

/// How a search orders its results.
public enum SearchSort: String, Sendable, Hashable, CaseIterable {
    /// Best match first (``ResultOrder``).
    case relevance
    /// Nearest first, from the center of the search's ``SearchFilter/near``, in whole metres,
    /// equally near ones by their order key (``ItemKey/orderKey``): the matches within the
    /// circle, found among its places outward from the center rather than by ranking the
    /// index, so the cost follows the page asked for (the count is then what was found, as
    /// `totalHitsExact` says). A circle of more than 65,536 items (a radius of a country)
    /// orders the best ``Facet/candidates`` matches in it instead.
    case distance

    /// A distance as the order and the answers give it: kilometres to the metre.
    public static func rounded(_ kilometres: Double) -> Double { (kilometres * 1000).rounded() / 1000 }
}

/// One result: the item, its scores, what a tap does, how far it is.
public struct SearchHit: Sendable, Hashable {
    public var item: SearchableItem
    public var score: Double
    /// The first-stage relevance (BM25) the result was found by, before the item's signals;
    /// a router orders shards' candidates by it (``ResultOrder``).
    public var relevance = 0.0
    public var action: TapAction?
    /// The best-matching fragment, matches between ``SearchRequest/snippetStart`` and
    /// ``SearchRequest/snippetEnd``.
    public var snippet: String?
    /// Kilometres (to the metre) from the center of the search's ``SearchFilter/near``.
    public var distance: Double?

    public init(item: SearchableItem, score: Double, relevance: Double = 0, action: TapAction? = nil, snippet: String? = nil,
                distance: Double? = nil) {
        self.item = item
        self.score = score
        self.relevance = relevance
        self.action = action
        self.snippet = snippet
        self.distance = distance
    }
}

/// A search's answer: its results, how many matched, facets and corrections.
public struct SearchResponse: Sendable {
    public var query: String
    public var hits: [SearchHit]
    /// True when no result had every word and the search fell back to any word.
    public var matchedAnyWord: Bool
    /// Words that were also searched under other spellings (`lemmon` → `lemon`).
    public var corrections: [String: [String]]
    /// How many items match, as far as the search looked: exact when ``totalIsExact``,
    /// else a lower bound (pruning stops counting once the best results are certain).
    public var total = 0
    public var totalIsExact = true
    /// The results skipped before these (the request's offset).
    public var offset = 0
    /// How long the answer took to compute, in milliseconds (a cached answer keeps the
    /// figure of its computation).
    public var processingTimeMs = 0.0
    /// The facets asked for, counted; nil when none were asked for.
    public var facets: FacetCounts?

    public init(query: String, hits: [SearchHit], matchedAnyWord: Bool = false, corrections: [String: [String]] = [:], total: Int = 0,
                totalIsExact: Bool = true, offset: Int = 0, processingTimeMs: Double = 0) {
        self.query = query
        self.hits = hits
        self.matchedAnyWord = matchedAnyWord
        self.corrections = corrections
        self.total = total
        self.totalIsExact = totalIsExact
        self.offset = offset
        self.processingTimeMs = processingTimeMs
    }

    /// The `search --json` shape of DESIGN.md.
    public var json: JSONValue { json(showingRecords: true) }

    /// The `search --json` shape; without `showingRecords`, an ingested item's `source` is
    /// only `"pushed"` or `"crawled"`, not the app record it came from (the HTTP API's
    /// answers, which anyone may read).
    public func json(showingRecords: Bool) -> JSONValue {
        .object(JSONObject([
            ("query", .string(query)),
            ("offset", JSONValue(offset)),
            ("estimatedTotalHits", JSONValue(total)),
            ("totalHitsExact", .bool(totalIsExact)),
            ("processingTimeMs", JSONValue((processingTimeMs * 100).rounded() / 100)),
            ("results", .array(hits.map { $0.json(showingRecord: showingRecords) })),
            ("matchedAnyWord", .bool(matchedAnyWord)),
            ("corrections", .object(JSONObject(corrections.sorted { $0.key < $1.key }.map { ($0.key, .array($0.value.map(JSONValue.string))) }))),
        ] + (facets.map { [("facets", $0.json), ("facetsExact", .bool($0.exact))] } ?? [])))
    }
}

extension SearchHit {
    /// A marked snippet as plain text and the [start, end) UTF-16 ranges of its matches.
    package static func highlights(in marked: String) -> (plain: String, ranges: [(start: Int, end: Int)]) {
        var plain = ""
        var ranges: [(start: Int, end: Int)] = []
        var offset = 0
        var start: Int?
        for scalar in marked.unicodeScalars {
            switch scalar {
            case "\u{2}": start = offset
            case "\u{3}":
                if let begun = start, begun < offset { ranges.append((begun, offset)) }
                start = nil
            default:
                plain.unicodeScalars.append(scalar)
                offset += scalar.utf16.count
            }
        }
        return (plain, ranges)
    }

    /// The inverse of ``highlights(in:)``: markers put back around each range (for answers
    /// read back from the API).
    package static func marked(_ plain: String, ranges: [(start: Int, end: Int)]) -> String {
        var out = ""
        var offset = 0
        var edges: [Int: String] = [:]
        for range in ranges where range.start < range.end {
            edges[range.start, default: ""] += SearchRequest.snippetStart
            edges[range.end, default: ""] = SearchRequest.snippetEnd + (edges[range.end] ?? "")
        }
        for scalar in plain.unicodeScalars {
            if let edge = edges[offset] { out += edge }
            out.unicodeScalars.append(scalar)
            offset += scalar.utf16.count
        }
        if let edge = edges[offset] { out += edge }
        return out
    }
}

extension SearchHit {
    public var json: JSONValue { json(showingRecord: true) }

    /// The result as `search --json` and the API write it; `showingRecord` keeps an ingested item's record.
    public func json(showingRecord: Bool) -> JSONValue {
        let item = self.item
        var fields = JSONObject([
            ("id", .string(item.uniqueIdentifier)),
            ("url", item.webURL.map(JSONValue.string) ?? .null),
            ("title", .string(item.title)),
            ("description", item.contentDescription.map(JSONValue.string) ?? .null),
            ("domain", item.domain.map(JSONValue.string) ?? .null),
            ("thumbnail", item.thumbnailURL.map(JSONValue.string) ?? .null),
            ("score", JSONValue(Self.rounded(score, significantDigits: 4))),
            ("apps", .array(item.apps.map { app in
                .object(JSONObject([
                    ("platform", .string(app.platform.rawValue)),
                    ("appStoreId", app.appStoreID.map(JSONValue.string) ?? .null),
                    ("package", app.package.map(JSONValue.string) ?? .null),
                    ("name", app.name.map(JSONValue.string) ?? .null),
                    ("deepLink", app.deepLink.map(JSONValue.string) ?? .null),
                    ("universalLink", .bool(app.isUniversalLink)),
                    ("installURL", app.installURL.map(JSONValue.string) ?? .null),
                ]))
            })),
            ("action", action?.json ?? .null),
            ("contentType", item.contentType.map(JSONValue.string) ?? .null),
            ("rating", item.rating.map { JSONValue($0) } ?? .null),
            ("price", item.price.map(JSONValue.string) ?? .null),
            ("currency", item.currency.map(JSONValue.string) ?? .null),
            ("source", (showingRecord ? item.record?.json : nil) ?? .string(item.source.rawValue)),
            ("ratingScale", JSONValue(item.ratingScale)),
            ("ratingCount", item.ratingCount.map { JSONValue($0) } ?? .null),
        ])
        if item.rendered { fields.append("rendered", true) }
        if let location = item.location {
            fields.append("latitude", JSONValue(location.latitude))
            fields.append("longitude", JSONValue(location.longitude))
        }
        if let distance { fields.append("distance", JSONValue(distance)) }
        if let snippet {
            // Plain text, and where the matches are: UTF-16 offsets, as JavaScript strings
            // index them (no control characters or markup in the JSON).
            let (plain, ranges) = Self.highlights(in: snippet)
            fields.append("snippet", .string(plain))
            fields.append("snippetHighlights", .array(ranges.map { [JSONValue($0.start), JSONValue($0.end)] }))
        }
        return .object(fields)
    }
}

extension SearchResponse {
    /// Reads the ``json`` shape back, as a client of the HTTP API sees it (`search --server`).
    public init(json: JSONValue) throws(SearchIndexError) {
        guard let query = json["query"]?.stringValue, let results = json["results"]?.arrayValue else {
            throw SearchIndexError(.invalidResponse, "not a search response: no query and results")
        }
        var corrections: [String: [String]] = [:]
        for member in json["corrections"]?.objectValue?.members ?? [] {
            corrections[member.key] = member.value.arrayValue?.compactMap(\.stringValue) ?? []
        }
        self.init(query: query, hits: results.map(SearchHit.init(json:)), matchedAnyWord: json["matchedAnyWord"]?.boolValue ?? false,
                  corrections: corrections, total: json["estimatedTotalHits"]?.intValue ?? results.count,
                  totalIsExact: json["totalHitsExact"]?.boolValue ?? true, offset: json["offset"]?.intValue ?? 0,
                  processingTimeMs: json["processingTimeMs"]?.doubleValue ?? 0)
        if let facets = json["facets"] { self.facets = try FacetCounts(json: facets, exact: json["facetsExact"]?.boolValue ?? false) }
    }
}

extension SearchHit {
    /// Reads one result of the ``json`` shape (a client's, or a router's of a shard's answer).
    public init(json: JSONValue) {
        func text(_ key: String, in value: JSONValue = json) -> String? { value[key]?.stringValue }
        let apps = (json["apps"]?.arrayValue ?? []).compactMap { app -> AppTarget? in
            guard let platform = text("platform", in: app).flatMap(AppTarget.Platform.init(rawValue:)) else { return nil }
            return AppTarget(platform: platform, appStoreID: text("appStoreId", in: app), package: text("package", in: app),
                             name: text("name", in: app), deepLink: text("deepLink", in: app),
                             isUniversalLink: app["universalLink"]?.boolValue ?? false)
        }
        var item = SearchableItem(
            uniqueIdentifier: text("id") ?? "", contentType: text("contentType"), title: text("title") ?? "",
            contentDescription: text("description"), thumbnailURL: text("thumbnail"), webURL: text("url"),
            rating: json["rating"]?.doubleValue, ratingScale: json["ratingScale"]?.doubleValue ?? 5, ratingCount: json["ratingCount"]?.intValue,
            price: text("price"), currency: text("currency"), apps: apps,
            source: text("source").flatMap(SearchableItem.Source.init(rawValue:)) ?? .pushed,
            record: json["source"].flatMap(RecordReference.init(json:)))
        item.rendered = json["rendered"]?.boolValue ?? false
        if let latitude = json["latitude"]?.doubleValue, let longitude = json["longitude"]?.doubleValue {
            item.location = GeoPoint(latitude: latitude, longitude: longitude)
        }
        let action = json["action"].flatMap { action -> TapAction? in
            guard let kind = text("type", in: action).flatMap(TapAction.Kind.init(rawValue:)) else { return nil }
            let url = text("url", in: action)
            // The action names its app by URL: the deep link (or the universal link's web
            // URL) it opens, or the store page it offers.
            let app: AppTarget? = switch kind {
            case .openApp: apps.first { $0.deepLink == url || ($0.isUniversalLink && item.webURL == url) }
            case .installApp: apps.first { $0.installURL == url }
            case .openWeb: nil
            }
            return TapAction(kind: kind, url: url, app: app)
        }
        self.init(item: item, score: json["score"]?.doubleValue ?? 0, action: action, snippet: text("snippet").map { plain in
            let ranges = (json["snippetHighlights"]?.arrayValue ?? []).compactMap { pair -> (start: Int, end: Int)? in
                guard let start = pair.arrayValue?.first?.intValue, let end = pair.arrayValue?.last?.intValue else { return nil }
                return (start, end)
            }
            return Self.marked(plain, ranges: ranges)
        })
        distance = json["distance"]?.doubleValue.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }
}

extension SearchHit {
    /// `value` to a few significant digits, for printing: bm25 scores range from about
    /// 1e-6 (a word in most of a small index) to tens, so fixed decimals would print 0.
    package static func rounded(_ value: Double, significantDigits digits: Int) -> Double {
        guard value != 0, value.isFinite else { return value }
        let scale = pow(10, Double(digits) - (log10(abs(value))).rounded(.up))
        return (value * scale).rounded() / scale
    }
}
