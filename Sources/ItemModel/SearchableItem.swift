#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextUtilities

/// One searchable thing, in the CoreSpotlight model: a crawled web page, an item an app
/// pushed, or a public user activity. Upserting an item with the same
/// ``uniqueIdentifier`` replaces it whole.
public struct SearchableItem: Sendable, Hashable {
    /// Where the item came from: the crawl, a push, or public activities.
    public enum Source: String, Sendable, Hashable {
        case crawled, pushed, activity
    }

    /// For a crawled page: its canonical URL.
    public var uniqueIdentifier: String
    /// Dot-separated, hierarchical (`com.example.people`); deleting `a.b` deletes `a.b.c`.
    public var domainIdentifier: String?
    /// The kind of thing (`Recipe`, `Product`, `article`…).
    public var contentType: String?
    public var title: String
    public var contentDescription: String?
    public var keywords: [String]
    public var thumbnailURL: String?
    public var webURL: String?
    /// A rating on the scale 0…``ratingScale``.
    public var rating: Double?
    public var ratingScale: Double
    public var ratingCount: Int?
    public var price: String?
    public var currency: String?
    public var telephone: String?
    public var address: String?
    /// Apps that can open the item, at most one entry per platform and app.
    public var apps: [AppTarget]
    /// False when the markup forbids falling back to the web page (`al:web:should_fallback=false`).
    public var allowsWebFallback: Bool
    /// An excerpt of the page's visible text, for recall.
    public var bodyText: String
    public var expirationDate: Date?
    public var source: Source
    /// The API key owner that pushed the item; nil for crawled items.
    public var owner: String?
    public var lastUpdated: Date
    /// The app-database record the item was made from, for ingested items.
    public var record: RecordReference?
    /// The language of its text, a BCP 47 tag (`en`, `fr-CA`): which Snowball stemmer its
    /// words are stemmed with (English when nil).
    public var language: String?
    /// A crawled page read from the document a browser built (`crawl --render`), not from its
    /// HTML as sent. Only the crawler sets it.
    public var rendered = false
    /// Where the item is (a restaurant, an event's venue): CoreSpotlight's `latitude` and
    /// `longitude`, schema.org's `geo`. Searches may keep to a circle around a place.
    public var location: GeoPoint?

    public init(
        uniqueIdentifier: String, domainIdentifier: String? = nil, contentType: String? = nil, title: String,
        contentDescription: String? = nil, keywords: [String] = [], thumbnailURL: String? = nil, webURL: String? = nil,
        rating: Double? = nil, ratingScale: Double = 5, ratingCount: Int? = nil, price: String? = nil, currency: String? = nil,
        telephone: String? = nil, address: String? = nil, apps: [AppTarget] = [], allowsWebFallback: Bool = true,
        bodyText: String = "", expirationDate: Date? = nil, source: Source = .pushed, owner: String? = nil,
        lastUpdated: Date = Date(), record: RecordReference? = nil, language: String? = nil
    ) {
        self.uniqueIdentifier = uniqueIdentifier
        self.domainIdentifier = domainIdentifier
        self.contentType = contentType
        self.title = title
        self.contentDescription = contentDescription
        self.keywords = keywords
        self.thumbnailURL = thumbnailURL
        self.webURL = webURL
        self.rating = rating
        self.ratingScale = ratingScale
        self.ratingCount = ratingCount
        self.price = price
        self.currency = currency
        self.telephone = telephone
        self.address = address
        self.apps = apps
        self.allowsWebFallback = allowsWebFallback
        self.bodyText = bodyText
        self.expirationDate = expirationDate
        self.source = source
        self.owner = owner
        self.lastUpdated = lastUpdated
        self.record = record
        self.language = language
    }

    /// The host of ``webURL``, lower case.
    public var domain: String? {
        webURL.flatMap { URLComponents(string: $0)?.host?.lowercased() }
    }

    /// True when the item has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        expirationDate.map { $0 <= date } ?? false
    }
}

/// An app that can open an item, with how it was learned.
public struct AppTarget: Sendable, Hashable {
    /// The platform an app runs on.
    public enum Platform: String, Sendable, Hashable, CaseIterable {
        case ios, android
    }

    /// Where the app was declared, most authoritative first (the order used when merging).
    public enum Evidence: String, Sendable, Hashable, Comparable {
        case universalLink = "universal-link"
        case smartAppBanner = "smart-app-banner"
        case appLinks = "app-links"
        case twitterCard = "twitter-card"
        case alternate
        case schemaAction = "schema-action"
        case pushed

        private var rank: Int {
            switch self {
            case .pushed: 0
            case .universalLink: 1
            case .smartAppBanner: 2
            case .appLinks: 3
            case .twitterCard: 4
            case .alternate: 5
            case .schemaAction: 6
            }
        }

        public static func < (lhs: Evidence, rhs: Evidence) -> Bool { lhs.rank < rhs.rank }
    }

    public var platform: Platform
    /// The numeric App Store id (iOS).
    public var appStoreID: String?
    /// The bundle id, when an apple-app-site-association file named it (`com.example.app`).
    public var bundleID: String?
    /// The Android package name.
    public var package: String?
    public var name: String?
    /// The custom-scheme deep link that opens the item in the app.
    public var deepLink: String?
    /// True when the site's apple-app-site-association file claims the item's https URL
    /// for this app: a tap on the web URL itself opens the app.
    public var isUniversalLink: Bool
    public var evidence: Evidence

    public init(
        platform: Platform, appStoreID: String? = nil, bundleID: String? = nil, package: String? = nil, name: String? = nil,
        deepLink: String? = nil, isUniversalLink: Bool = false, evidence: Evidence = .pushed
    ) {
        self.platform = platform
        self.appStoreID = appStoreID
        self.bundleID = bundleID
        self.package = package
        self.name = name
        self.deepLink = deepLink
        self.isUniversalLink = isUniversalLink
        self.evidence = evidence
    }

    /// The identifier apps are matched by: App Store id, else bundle id (iOS); package (Android).
    public var identity: String? {
        platform == .ios ? (appStoreID ?? bundleID) : package
    }

    /// True when `installed` (App Store ids, bundle ids or package names) names this app.
    public func isInstalled(_ installed: Set<String>) -> Bool {
        [appStoreID, bundleID, package].contains { $0.map(installed.contains) ?? false }
    }

    /// Whether `link` may be a result's deep link, from a page or a push (``DeepLinkRule``).
    public static func isAcceptableDeepLink(_ link: String) -> Bool { DeepLinkRule.isAcceptable(link) }

    /// Where to get the app.
    public var installURL: String? {
        switch platform {
        case .ios: return appStoreID.map { "https://apps.apple.com/app/id\($0)" }
        case .android:
            return package.map { "https://play.google.com/store/apps/details?id=\(Unreserved.encodingOthers($0))" }
        }
    }
}
