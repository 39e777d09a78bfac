import Crawl
import EmbeddedStore
import Fetch
import Foundation
import HTTPServer
import HTTPTypes
import Items
import SearchIndex
import SearchlightTestSupport
import StoreSeams
import Synchronization
import Testing
import WebRules
import WebURL

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let time: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        time = Mutex(start)
    }

    var now: Date { time.withLock { $0 } }

    func advance(_ seconds: TimeInterval) {
        time.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var crawlClock: CrawlClock { CrawlClock { self.now } }
}

/// Scheduled runs of the crawler, in process, over a fixture site, on a manual clock.
struct ScheduledCrawl {
    let web: FixtureWeb
    let host: String
    let clock = ManualClock()
    let folder: TemporaryDirectory
    var configure: (inout CrawlConfiguration) -> Void = { _ in }

    init(web: FixtureWeb, host: String) throws {
        self.web = web
        self.host = host
        folder = try TemporaryDirectory("schedule")
    }

    var data: String { folder.url.appendingPathComponent("data").path }
    var origin: String { web.origin(host) }

    /// One run, as `searchlight crawl` would do it at the clock's time.
    @discardableResult
    func run(seeds: [String] = [], _ adjust: (inout CrawlConfiguration) -> Void = { _ in }) throws -> RunReport {
        var fetch = FetchConfiguration(userAgent: "Searchlightbot/test")
        fetch.addressPolicy = .any
        fetch.resolve = [web.resolveEntry(host)]
        fetch.timeout = 5
        var configuration = CrawlConfiguration(dataDirectory: data, fetch: fetch)
        configuration.delay = 0
        configuration.writesWARC = false
        configuration.clock = clock.crawlClock
        configuration.seeds = seeds.compactMap(WebURL.init)
        configure(&configuration)
        adjust(&configuration)
        return try CrawlEngine.local(configuration: configuration, runID: "run-\(clock.now.timeIntervalSince1970)").run()
    }

    /// The ids a search finds at the clock's time (or at `now`).
    func search(_ query: String, at now: Date? = nil) throws -> Set<String> {
        let index = try SearchIndex(path: data + "/index.sqlite", mode: .existing)
        var request = SearchRequest(query, limit: 100)
        request.now = now ?? clock.now
        return Set(try index.search(request).hits.map(\.item.uniqueIdentifier))
    }

    func status() throws -> CrawlStatus { try CrawlStatus.read(dataDirectory: data, now: clock.now) }

    /// Page paths requested from the host since `mark` (robots.txt and sitemaps left out).
    func pagesRequested(since mark: Int) -> [String] {
        web.requests.dropFirst(mark).filter { $0.hasPrefix(host) }.map { String($0.dropFirst(host.count)) }
            .filter { $0 != "/robots.txt" && !$0.hasPrefix("/sitemap") && !Sitemap.wellKnownPaths.contains($0) }
    }

    func remove() { folder.remove() }
}

let hour: TimeInterval = 3600
let day: TimeInterval = 86_400

/// The revisit arithmetic, with plain values.
@Suite struct RevisitScheduleTests {
    let schedule = RevisitSchedule()

    @Test func theFirstIntervalComesFromTheSitemap() {
        #expect(schedule.interval(after: nil, changed: true, changeFrequency: nil) == day)
        #expect(schedule.interval(after: nil, changed: true, changeFrequency: .hourly) == hour)
        #expect(schedule.interval(after: nil, changed: true, changeFrequency: .always) == hour, "never below an hour")
        #expect(schedule.interval(after: nil, changed: false, changeFrequency: .weekly) == 7 * day)
        #expect(schedule.interval(after: nil, changed: false, changeFrequency: .yearly) == 30 * day, "never above 30 days")
    }

    @Test func changesShrinkItAndStillnessGrowsIt() {
        #expect(schedule.interval(after: day, changed: true, changeFrequency: nil) == day / 2)
        #expect(schedule.interval(after: day, changed: false, changeFrequency: nil) == 1.5 * day)
        #expect(schedule.interval(after: 1.5 * hour, changed: true, changeFrequency: nil) == hour)
        #expect(schedule.interval(after: 25 * day, changed: false, changeFrequency: .hourly) == 30 * day, "the hint only seeds")
        var interval = day
        for _ in 0..<20 { interval = schedule.interval(after: interval, changed: false, changeFrequency: nil) }
        #expect(interval == 30 * day)
        for _ in 0..<20 { interval = schedule.interval(after: interval, changed: true, changeFrequency: nil) }
        #expect(interval == hour)
    }

    @Test func failuresAreRetriedSoonThenDaily() {
        #expect(schedule.retryDelay(afterFailures: 1) == hour)
        #expect(schedule.retryDelay(afterFailures: 2) == 2 * hour)
        #expect(schedule.retryDelay(afterFailures: 4) == 8 * hour)
        #expect(schedule.retryDelay(afterFailures: 30) == day)
    }
}

/// Runs at moments set by a manual clock, against a fixture site that changes between them.
@Suite(.serialized) struct ScheduledRunTests {
    /// A page honouring If-None-Match with a fixed ETag.
    static func taggedPage(_ web: FixtureWeb, _ host: String, _ path: String, html: String, etag: String, notModified: Counter) {
        web.route(host, path) { request in
            if request.header("If-None-Match") == etag {
                notModified.increment()
                return HTTPServerResponse(status: 304, headers: [HTTPField("ETag", etag)])
            }
            return HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/html"), HTTPField("ETag", etag)],
                                      body: .bytes(Array(html.utf8)))
        }
    }

    @Test func changedPagesComeBackSoonerAndUnchangedOnesLaterWithConditionalGets() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "fresh.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        web.page(host, "/", html: page("Home", links: ["/stable", "/changing"]))
        let answered304 = Counter()
        Self.taggedPage(web, host, "/stable", html: page("Stable page", body: "Never changes."), etag: "\"v1\"", notModified: answered304)
        let version = Counter()
        web.route(host, "/changing") { _ in .html(page("Changing page", body: "Version \(version.increment()).")) }

        try crawl.run(seeds: [crawl.origin + "/"])
        #expect(crawl.pagesRequested(since: 0).sorted() == ["/", "/changing", "/stable"])

        // A day later everything is due (a day is the first interval without a sitemap hint).
        crawl.clock.advance(day + 60)
        var mark = web.requests.count
        let second = try crawl.run()
        #expect(crawl.pagesRequested(since: mark).sorted() == ["/", "/changing", "/stable"])
        #expect(second.notModified == 1, "the ETag made /stable a 304")
        #expect(answered304.value == 1)
        #expect(try crawl.search("stable").contains(crawl.origin + "/stable"), "a 304 keeps the item")

        // /changing changed: its interval halved to 12 hours; the others grew to 36.
        crawl.clock.advance(13 * hour)
        mark = web.requests.count
        try crawl.run()
        #expect(crawl.pagesRequested(since: mark) == ["/changing"])
        #expect(try crawl.status().urls?.due == 0)

        crawl.clock.advance(24 * hour)
        mark = web.requests.count
        try crawl.run()
        #expect(crawl.pagesRequested(since: mark).sorted() == ["/", "/changing", "/stable"], "36 hours after the second run")
    }

    @Test func dueURLsComeFirstMostOverdueFirstThenNewOnes() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "due.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        let origin = crawl.origin
        web.file(host, "/sitemap.xml", contentType: "application/xml", bytes: Array("""
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc>\(origin)/hourly</loc><changefreq>hourly</changefreq></url>
            <url><loc>\(origin)/daily</loc><changefreq>daily</changefreq></url>
            <url><loc>\(origin)/weekly</loc><changefreq>weekly</changefreq></url>
            </urlset>
            """.utf8))
        for path in ["/hourly", "/daily", "/weekly"] { web.page(host, path, html: page("Page \(path)")) }
        web.page(host, "/", html: page("Home"))
        try crawl.run(seeds: [origin + "/"])
        #expect(crawl.pagesRequested(since: 0).sorted() == ["/", "/daily", "/hourly", "/weekly"])

        // Two days on, /hourly is 47 hours overdue, / and /daily a day; /weekly is not due.
        // The home page now links to a new page, found only when / is fetched again.
        web.page(host, "/", html: page("Home", links: ["/new"]))
        web.page(host, "/new", html: page("New page"))
        crawl.clock.advance(2 * day)
        var mark = web.requests.count
        try crawl.run { $0.maximumPages = 1 }
        #expect(crawl.pagesRequested(since: mark) == ["/hourly"], "the most overdue first")
        mark = web.requests.count
        try crawl.run { $0.maximumPages = 2 }
        #expect(crawl.pagesRequested(since: mark).sorted() == ["/", "/daily"])
        mark = web.requests.count
        try crawl.run()
        #expect(crawl.pagesRequested(since: mark) == ["/new"], "then what was discovered")
        #expect(!crawl.pagesRequested(since: 0).dropFirst(4).contains("/weekly"))
    }

    @Test func aNewerSitemapLastmodMakesAURLDueAtOnce() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "lastmod.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        let start = crawl.clock.now
        func sitemap(_ lastModified: Date) {
            let stamp = ISO8601DateFormatter().string(from: lastModified)
            web.file(host, "/sitemap.xml", contentType: "application/xml", bytes: Array("""
                <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                <url><loc>\(crawl.origin)/news</loc><lastmod>\(stamp)</lastmod><changefreq>weekly</changefreq></url>
                </urlset>
                """.utf8))
        }
        sitemap(start.addingTimeInterval(-day))
        web.page(host, "/news", html: page("News", body: "First story."))
        try crawl.run(seeds: [crawl.origin + "/news"])
        #expect(try crawl.search("first").count == 1)

        // Two hours later the sitemap says /news changed an hour ago: due now, not in a week.
        web.page(host, "/news", html: page("News", body: "Second story."))
        sitemap(start.addingTimeInterval(hour))
        crawl.clock.advance(2 * hour)
        let mark = web.requests.count
        try crawl.run()
        #expect(crawl.pagesRequested(since: mark) == ["/news"])
        #expect(try crawl.search("second").count == 1)
        #expect(try crawl.search("first").isEmpty)
    }

    @Test func goneNoindexDisallowedAndCanonicalPagesLoseTheirItems() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "deletion.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        let origin = crawl.origin
        let paths = ["/gone", "/hidden", "/blocked", "/alias", "/keep"]
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nDisallow: /private\n".utf8))
        web.page(host, "/", html: page("Home", links: paths + ["/target"]))
        for path in paths { web.page(host, path, html: page("Topic \(path.dropFirst())", body: "shared word")) }
        web.page(host, "/target", html: page("Target", body: "another shared word"))
        try crawl.run(seeds: [origin + "/"])
        #expect(try crawl.search("shared") == Set((paths + ["/target"]).map { origin + $0 }))

        web.route(host, "/gone") { _ in .text("gone", status: 410) }
        web.page(host, "/hidden", html: page("Topic hidden", head: "<meta name=robots content=noindex>", body: "shared word"))
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nDisallow: /blocked\n".utf8))
        web.page(host, "/alias", html: page("Topic alias", head: "<link rel=canonical href=/target>", body: "shared word"))
        crawl.clock.advance(2 * day)
        let report = try crawl.run()
        #expect(try crawl.search("shared") == [origin + "/keep", origin + "/target"])
        #expect(report.deleted == 4)
        #expect(report.skipped["robots"] == 1)
        #expect(report.skipped["http-410"] == 1)
        #expect(report.skipped["noindex"] == 1)
        #expect(report.skipped["canonical"] == 1)
    }

    @Test func aFailingPageKeepsItsItemForTheGracePeriod() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "flaky.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        let failing = Flag()
        web.page(host, "/", html: page("Home", links: ["/flaky"]))
        web.route(host, "/flaky") { _ in
            failing.isOn ? .text("down", status: 503) : .html(page("Flaky page", body: "sometimes there"))
        }
        try crawl.run(seeds: [crawl.origin + "/"])
        let flaky = crawl.origin + "/flaky"
        #expect(try crawl.search("sometimes") == [flaky])

        failing.set(true)
        var kept: [Bool] = []
        for _ in 0..<5 {
            crawl.clock.advance(2 * day)
            let report = try crawl.run()
            #expect(report.skipped["http-503"] == 1, "a 503 is a transient failure (and backs the host off)")
            kept.append(try crawl.search("sometimes") == [flaky])
        }
        // First failure on day 2; the grace period of 7 days ends on day 9.
        #expect(kept == [true, true, true, true, false])
        #expect(try crawl.status().urls?.failing == 1)

        failing.set(false)
        crawl.clock.advance(2 * day)
        try crawl.run()
        #expect(try crawl.search("sometimes") == [flaky], "back when the page is")
    }

    @Test func anUnreachableRobotsTxtUsesTheCachedCopyAndKeepsItems() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "robots-down.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nDisallow: /private\n".utf8))
        web.page(host, "/", html: page("Home", links: ["/open", "/private/x"]))
        web.page(host, "/open", html: page("Open page", body: "meadow"))
        web.page(host, "/private/x", html: page("Private page"))
        try crawl.run(seeds: [crawl.origin + "/"])
        #expect(try crawl.search("meadow").count == 1)

        web.route(host, "/robots.txt") { _ in .text("down", status: 500) }
        crawl.clock.advance(2 * day)
        let mark = web.requests.count
        let report = try crawl.run()
        #expect(report.skipped["robots-unreachable-cached-copy-used"] == 1)
        #expect(crawl.pagesRequested(since: mark).sorted() == ["/", "/open"], "the cached rules still keep /private out")
        #expect(try crawl.search("meadow").count == 1)

        // Past 30 days without a readable robots.txt there is no copy to use: nothing is
        // fetched and nothing is deleted; the items expire on their own schedule.
        crawl.clock.advance(29 * day)
        let later = web.requests.count
        let stale = try crawl.run()
        #expect(stale.skipped["robots-unreachable"] == 1)
        #expect(crawl.pagesRequested(since: later).isEmpty)
        #expect(stale.deleted == 0)
    }

    @Test func itemsNotConfirmedInTimeExpire() throws {
        let web = try FixtureWeb()
        let crawl = try ScheduledCrawl(web: web, host: "expiry.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        web.page(host, "/", html: page("Home", links: ["/a", "/b"]))
        web.page(host, "/a", html: page("Expiring a"))
        web.page(host, "/b", html: page("Expiring b"))
        let lifetime = 10 * day
        let settings: (inout CrawlConfiguration) -> Void = { $0.itemLifetime = lifetime; $0.failureGracePeriod = 60 * day }
        try crawl.run(seeds: [crawl.origin + "/"], settings)
        let start = crawl.clock.now
        #expect(try crawl.search("expiring", at: start.addingTimeInterval(lifetime - hour)).count == 2)
        #expect(try crawl.search("expiring", at: start.addingTimeInterval(lifetime + hour)).isEmpty, "out of results once expired")

        // The site disappears; nothing confirms the items, and a run past their lifetime purges them.
        web.stop()
        crawl.clock.advance(lifetime + hour)
        #expect(try crawl.status().index?.expired == 3)
        let report = try crawl.run(settings)
        #expect(report.expired == 3)
        #expect(try crawl.status().index?.items == 0)
    }

    @Test func revisitsComeBeforeItemsWouldExpire() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let crawl = try ScheduledCrawl(web: web, host: "stable.web.test")
        defer { crawl.remove() }
        let host = crawl.host
        let answered304 = Counter()
        Self.taggedPage(web, host, "/", html: page("Steady page"), etag: "\"same\"", notModified: answered304)
        let settings: (inout CrawlConfiguration) -> Void = { $0.itemLifetime = 5 * day }
        try crawl.run(seeds: [crawl.origin + "/"], settings)
        // The interval grows past the lifetime, but every visit comes a day before expiry
        // and its 304 confirms the item, so it never drops out.
        for _ in 0..<6 {
            crawl.clock.advance(4 * day + hour)
            try crawl.run(settings)
            #expect(try crawl.search("steady").count == 1)
        }
        #expect(answered304.value == 6)
    }
}

/// The lock that keeps runs apart.
@Suite struct CrawlLockTests {
    @Test func aSecondHolderIsRefusedAndToldWhoHoldsIt() throws {
        let folder = try TemporaryDirectory("lock")
        defer { folder.remove() }
        let path = folder.path + "/crawl.lock"
        #expect(CrawlLock.holder(path: path) == nil)
        let first = try CrawlLock.acquire(path: path, runID: "run-1").get()
        #expect(CrawlLock.holder(path: path)?.runID == "run-1")
        #expect(CrawlLock.holder(path: path)?.pid == getpid())
        switch try CrawlLock.acquire(path: path, runID: "run-2") {
        case .success: Issue.record("two runs held the lock")
        case .failure(let busy): #expect(busy.holder?.runID == "run-1")
        }
        withExtendedLifetime(first) {}
    }

    @Test func aLockLeftByAKilledRunIsTakenOver() throws {
        let folder = try TemporaryDirectory("lock")
        defer { folder.remove() }
        let path = folder.path + "/crawl.lock"
        // What a killed run leaves: its record in the file, and no flock (the kernel drops it).
        try Data("4194303 run-killed 1800000000\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(CrawlLock.holder(path: path) == nil)
        let lock = try CrawlLock.acquire(path: path, runID: "run-next").get()
        #expect(lock.tookOverFrom?.runID == "run-killed")
        #expect(lock.tookOverFrom?.pid == 4_194_303)
    }
}

/// A count shared with fixture routes.
final class Counter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        count.withLock { value in
            value += 1
            return value
        }
    }
}

/// A switch shared with fixture routes.
final class Flag: Sendable {
    private let state = Mutex(false)

    var isOn: Bool { state.withLock { $0 } }

    func set(_ on: Bool) { state.withLock { $0 = on } }
}
