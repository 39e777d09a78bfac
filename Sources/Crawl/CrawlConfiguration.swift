import Fetch
import Foundation
import ItemMapping
import Items
import Render
import StoreSeams
import WebRules
import WebURL

/// Everything a crawl run is told.
public struct CrawlConfiguration: Sendable {
    /// The data folder: `index.sqlite`, `frontier.sqlite`, `warc/`, `runs/`.
    public var dataDirectory: String
    public var seeds: [WebURL] = []
    /// Stop after fetching this many pages (robots.txt, sitemaps and association files
    /// are not counted).
    public var maximumPages = Int.max
    /// Links are followed this many steps from a seed; sitemap URLs count as depth 1.
    public var maximumDepth = 20
    /// Stop after this long, in seconds (for scheduled runs).
    public var maximumTime: TimeInterval = .infinity
    /// Keep the run alive (`crawl --continuous`): with nothing due, commit and sleep until
    /// the next URL is due or ``wakeUp`` says work may be, rather than end.
    public var continuous = false
    /// How a continuous run hears of work made due by another process (the data folder's
    /// named pipe, the shared store's `LISTEN`); without one it looks at the store every
    /// ``continuousPollInterval``.
    public var wakeUp: (any FrontierWakeUp)?
    /// How often a continuous run without a wake-up looks for due work; with one, how long
    /// it sleeps at most when nothing is due (a safety net for a lost wake-up).
    public var continuousPollInterval: TimeInterval = 1
    /// The longest fetched pages wait for their commit (`--commit-every`): what bounds the
    /// time from a fetch to its item searchable when work is sparse; when it is dense a full
    /// batch (``CrawlWriter/batchPages``) commits sooner, so batches stay large.
    public var commitInterval: TimeInterval = 1
    /// Requests in flight at once.
    public var concurrency = 32
    /// Connections to one host at once.
    public var perHostConnections = 2
    /// Seconds between two requests to one host; robots.txt Crawl-delay can only lengthen it.
    public var delay: TimeInterval = 1
    /// Pages fetched from one host in one run: the cap that stops endless URL spaces
    /// (calendars, session ids) that slip past the URL rules.
    public var maximumPagesPerHost = 10_000
    public var scope = CrawlScope.Mode.hosts
    public var include: [String] = []
    public var exclude: [String] = []
    public var keepsTrackingParameters = false
    /// Fetch robots.txt and obey it. Off only for the benchmark's own web and tests.
    public var obeysRobots = true
    public var readsSitemaps = true
    /// URLs made due at the start of the run whatever their schedule (`--refetch`).
    public var refetch: [RefetchSelection] = []
    /// Skip new URLs of templates judged endless URL spaces (``URLPatternBudget``);
    /// `--no-trap-detection` for an operator who knows the site.
    public var trapDetection = true
    public var fetch: FetchConfiguration
    public var writesWARC = true
    /// When pages are rendered in headless Chromium (`--render`), per host; ``RenderRule``
    /// decides in `auto`.
    public var render = RenderPolicy()
    /// The render's bounds (`--render-timeout`, `--render-concurrency`).
    public var renderer = Renderer.Configuration()
    public var browser = Browser.Configuration()
    public var warcFileBytes = 1 << 30
    /// Time between robots.txt fetches of one host (RFC 9309: at most a day).
    public var robotsLifetime: TimeInterval = 24 * 3600
    /// Items a crawled page produces live this long unless the page is confirmed again
    /// (CoreSpotlight's default expiration).
    public var itemLifetime: TimeInterval = SearchableItem.defaultLifetime
    /// A page that keeps failing transiently (timeouts, 5xx, refused connections) keeps
    /// its item this long after its first failure, then loses it.
    public var failureGracePeriod: TimeInterval = 7 * 24 * 3600
    /// When each fetched URL is due again.
    public var revisit = RevisitSchedule()
    /// A host's sitemaps are read again after this long, so that a newer `lastmod` is seen.
    public var sitemapInterval: TimeInterval = 3600
    /// The time every scheduling decision is made by.
    public var clock = CrawlClock.system
    /// The product token robots.txt groups are matched against.
    /// The site owners' templates for schema.org objects (`crawl --mapping`).
    public var mappings: MappingSet?
    public var productToken = "searchlightbot"
    public var software = "Searchlight"

    public init(dataDirectory: String, fetch: FetchConfiguration) {
        self.dataDirectory = dataDirectory
        self.fetch = fetch
    }

    public var folder: DataFolder { DataFolder(dataDirectory) }
}
