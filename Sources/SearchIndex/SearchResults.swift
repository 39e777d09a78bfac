import Foundation
import JSON

/// What to search for and for whom.
public struct SearchRequest: Sendable {
    public var text: String
    public var limit: Int
    public var platform: AppTarget.Platform
    /// App Store ids, bundle ids and package names of the apps the person has.
    public var installed: Set<String>
    /// Compute highlighted snippets (markers `\u{2}` … `\u{3}` around matches).
    public var snippets: Bool
    public var now: Date

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
}

public struct SearchHit: Sendable, Hashable {
    public var item: SearchableItem
    public var score: Double
    public var action: TapAction?
    /// The best-matching fragment, matches between ``SearchRequest/snippetStart`` and
    /// ``SearchRequest/snippetEnd``.
    public var snippet: String?
}

public struct SearchResponse: Sendable {
    public var query: String
    public var hits: [SearchHit]
    /// True when no result had every word and the search fell back to any word.
    public var matchedAnyWord: Bool
    /// Words that were also searched under other spellings (`lemmon` → `lemon`).
    public var corrections: [String: [String]]

    /// The `search --json` shape of DESIGN.md.
    public var json: JSONValue {
        .object(JSONObject([
            ("query", .string(query)),
            ("results", .array(hits.map(\.json))),
        ]))
    }
}

extension SearchHit {
    public var json: JSONValue {
        let item = self.item
        return .object(JSONObject([
            ("id", .string(item.uniqueIdentifier)),
            ("url", item.webURL.map(JSONValue.string) ?? .null),
            ("title", .string(item.title)),
            ("description", item.contentDescription.map(JSONValue.string) ?? .null),
            ("domain", item.domain.map(JSONValue.string) ?? .null),
            ("thumbnail", item.thumbnailURL.map(JSONValue.string) ?? .null),
            ("score", JSONValue((score * 1000).rounded() / 1000)),
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
            ("source", .string(item.source.rawValue)),
        ]))
    }
}
