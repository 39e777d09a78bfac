import Foundation
import TextUtilities
import WebURL

/// A URL claimed from the frontier for fetching, with what the last fetch left.
public struct FrontierEntry: Sendable {
    public var id: Int64
    public var url: WebURL
    public var origin: String
    public var depth: Int
    public var fromSitemap: Bool
    public var fetched: Bool
    public var etag: String?
    public var lastModified: String?
    public var contentHash: String?
    public var itemID: String?
    public var failures: Int
    public var firstFailure: Date?
    public var redirects: Int
    public var interval: TimeInterval?
    public var sitemapLastModified: Date?
    public var fetchedAt: Date?
    /// The sitemap's `changefreq` for the URL, if one gave it.
    public var changeFrequency: String?
    /// When an IndexNow notice first named the URL since its last fetch: such URLs are
    /// claimed ahead of routine revisits.
    public var noticed: Date?

    public init(id: Int64, url: WebURL, origin: String, depth: Int, fromSitemap: Bool = false, fetched: Bool = false, etag: String? = nil,
                lastModified: String? = nil, contentHash: String? = nil, itemID: String? = nil, failures: Int = 0, firstFailure: Date? = nil,
                redirects: Int = 0, interval: TimeInterval? = nil, sitemapLastModified: Date? = nil, fetchedAt: Date? = nil,
                changeFrequency: String? = nil, noticed: Date? = nil)
    {
        self.noticed = noticed
        self.id = id
        self.url = url
        self.origin = origin
        self.depth = depth
        self.fromSitemap = fromSitemap
        self.fetched = fetched
        self.etag = etag
        self.lastModified = lastModified
        self.contentHash = contentHash
        self.itemID = itemID
        self.failures = failures
        self.firstFailure = firstFailure
        self.redirects = redirects
        self.interval = interval
        self.sitemapLastModified = sitemapLastModified
        self.fetchedAt = fetchedAt
        self.changeFrequency = changeFrequency
    }
}

/// A URL to add to the frontier; known URLs are left as they are.
public struct FrontierURL: Sendable {
    public var url: WebURL
    public var depth: Int
    public var foundOn: String?
    public var fromSitemap = false
    public var priority = 0.5
    public var redirects = 0
    public var changeFrequency: String?
    public var sitemapLastModified: Date?

    public init(url: WebURL, depth: Int, foundOn: String?, fromSitemap: Bool = false, priority: Double = 0.5, redirects: Int = 0,
                changeFrequency: String? = nil, sitemapLastModified: Date? = nil)
    {
        self.url = url
        self.depth = depth
        self.foundOn = foundOn
        self.fromSitemap = fromSitemap
        self.priority = priority
        self.redirects = redirects
        self.changeFrequency = changeFrequency
        self.sitemapLastModified = sitemapLastModified
    }
}

/// What became of a claimed URL.
public struct FrontierOutcome: Sendable {
    public enum State: String, Sendable {
        /// Fetched and handled (indexed or not).
        case done
        /// A transient failure (timeout, 5xx, connection refused): tried again later.
        case failing
        /// 404/410: gone.
        case gone
        /// Not fetched on purpose (robots.txt, a refused address).
        case excluded
    }

    public var id: Int64
    public var state: State
    public var due: Date
    public var status: Int?
    public var etag: String?
    public var lastModified: String?
    public var contentHash: String?
    public var itemID: String?
    public var failures: Int
    public var firstFailure: Date?
    public var interval: TimeInterval?
    public var redirectedTo: String?
    public var changed: Bool
    /// When the notice that made the URL due was taken (its entry's ``FrontierEntry/noticed``),
    /// when this outcome was decided, and whether the page's item was written with it: not
    /// stored, they time ``CrawlFreshness``.
    public var noticed: Date?
    public var handled: Date?
    public var itemWritten = false
    /// The skip label of this URL's own verdict (`http-404`, `refused-address`, `noindex`…);
    /// nil when it was indexed or unchanged. `status --urls` lists URLs by it.
    public var reason: String?
    /// The rule behind the verdict where the reason alone does not say it (`invalid-item`:
    /// `webURL '…': over 2,048 bytes`), at most ``detailBytes``.
    public var detail: String? {
        get { storedDetail }
        set { storedDetail = newValue?.prefix(utf8Bytes: Self.detailBytes) }
    }
    private var storedDetail: String?

    /// The most bytes a verdict's detail keeps (cut on a character boundary).
    public static let detailBytes = 300

    /// The outcome that keeps what `entry` had, in `state`, due at `due`, decided at `handled`.
    public init(keeping entry: FrontierEntry, state: State, due: Date, handled: Date? = nil) {
        id = entry.id
        noticed = entry.noticed
        self.handled = handled
        self.state = state
        self.due = due
        etag = entry.etag
        lastModified = entry.lastModified
        contentHash = entry.contentHash
        itemID = entry.itemID
        failures = entry.failures
        firstFailure = entry.firstFailure
        interval = entry.interval
        changed = false
    }
}

/// What the crawl keeps about one origin between runs: robots.txt, association files,
/// back-off, when sitemaps were last read.
public struct HostRecord: Sendable {
    public var origin: String
    public var robotsStatus: Int?
    public var robotsBody: [UInt8]?
    public var robotsFetched: Date?
    public var associationFetched: Date?
    public var aasaBody: [UInt8]?
    public var assetLinksBody: [UInt8]?
    public var backoffUntil: Date?
    public var sitemapsFetched: Date?
    /// The earliest time the next request may go to the host, whoever sends it: a worker
    /// that takes the host over from another keeps its spacing. (Kept by shared stores.)
    public var nextAllowed: Date?

    public init(origin: String) {
        self.origin = origin
    }
}

/// One URL as `searchlight status --urls` shows it.
public struct FrontierRow: Sendable {
    public var url: String
    public var state: String
    public var reason: String?
    public var status: Int?
    public var lastAttempt: Date?
    public var due: Date
    /// The rule behind the verdict, where one was kept (``FrontierOutcome/detail``).
    public var detail: String?

    public init(url: String, state: String, reason: String?, status: Int?, lastAttempt: Date?, due: Date, detail: String? = nil) {
        self.detail = detail
        self.url = url
        self.state = state
        self.reason = reason
        self.status = status
        self.lastAttempt = lastAttempt
        self.due = due
    }
}

/// Which URLs `crawl --refetch` makes due now.
public enum RefetchSelection: Sendable {
    case urls([WebURL])
    /// URLs a site's owner said changed (an IndexNow notice): due now and claimed ahead of
    /// routine revisits; the first notice's time is kept until the URL is fetched.
    case notified([WebURL])
    /// Every URL excluded, failing or gone for this reason (`refused-address` when a run
    /// now allows private addresses).
    case reason(String)
    case all
}
