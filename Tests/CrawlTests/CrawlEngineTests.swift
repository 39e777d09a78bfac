import Crawl
import EmbeddedStore
import Fetch
import Foundation
import HTTPTypes
import Items
import SearchIndex
import SearchlightTestSupport
import Testing
import WebURL

/// The engine's decisions on a scripted web: no sockets, a clock that runs fast, the
/// embedded store in a temporary folder. The fixture-site tests (CrawlTests) cover the
/// same rules end to end over HTTP.
@Suite struct CrawlEngineTests {
    /// One site, its store and its clock; `run()` crawls it once.
    final class Harness {
        let folder: TemporaryDirectory
        let time = FastClock()
        let web: ScriptedWeb
        var configuration: CrawlConfiguration
        private var runs = 0

        init(seeds: [String] = ["http://shop.test/"]) throws {
            folder = try TemporaryDirectory("engine")
            web = ScriptedWeb(clock: time.clock)
            configuration = CrawlConfiguration(dataDirectory: folder.url.path, fetch: FetchConfiguration(userAgent: "searchlightbot-test"))
            configuration.seeds = seeds.compactMap(WebURL.init)
            configuration.delay = 0
            configuration.writesWARC = false
            configuration.clock = time.clock
        }

        deinit { folder.remove() }

        func run() throws -> RunReport {
            runs += 1
            let store = try LocalCrawlStore(dataDirectory: configuration.dataDirectory)
            let engine = try CrawlEngine(configuration: configuration, store: store, downloader: web, warc: nil, runID: "run-\(runs)")
            return try engine.run()
        }

        func item(_ id: String) throws -> SearchableItem? {
            try SearchIndex(path: folder.url.appendingPathComponent("index.sqlite").path, mode: .existing).item(ItemKey(owner: nil, identifier: id))
        }
    }

    func html(_ title: String, links: [String] = [], head: String = "") -> String {
        "<!doctype html><html><head><title>\(title)</title>\(head)</head><body><h1>\(title)</h1><p>About \(title).</p>"
            + links.map { "<a href=\"\($0)\">\($0)</a>" }.joined() + "</body></html>"
    }

    @Test func robotsRulesDecideWhatIsFetched() throws {
        let h = try Harness()
        h.web.text("http://shop.test/robots.txt", "User-agent: *\nDisallow: /private\n\nUser-agent: searchlightbot\nDisallow: /private\nDisallow: /drafts/\n")
        h.web.page("http://shop.test/", html("Shop", links: ["/a", "/private/b", "/drafts/c", "/public"]))
        for path in ["a", "private/b", "drafts/c", "public"] { h.web.page("http://shop.test/\(path)", html("Page \(path)")) }
        let report = try h.run()
        #expect(Set(h.web.requested.filter { !$0.hasSuffix(".txt") && !$0.hasSuffix(".xml") })
            == ["http://shop.test/", "http://shop.test/a", "http://shop.test/public"])
        #expect(report.skipped["robots"] == 2)
        #expect(try h.item("http://shop.test/a")?.title == "Page a")
        #expect(try h.item("http://shop.test/private/b") == nil)
        #expect(h.web.requested.first == "http://shop.test/robots.txt", "robots.txt before anything else")
    }

    @Test func anUnreachableRobotsFileLeavesTheHostAlone() throws {
        let h = try Harness()
        h.web.status("http://shop.test/robots.txt", 503)
        h.web.page("http://shop.test/", html("Shop"))
        let report = try h.run()
        #expect(h.web.requested == ["http://shop.test/robots.txt"], "RFC 9309: a 5xx robots.txt means disallow all")
        #expect(report.skipped["robots-unreachable"] == 1)
        #expect(report.fetched == 0)
    }

    @Test func aRedirectedRobotsFileIsFollowed() throws {
        let h = try Harness()
        h.web.redirect("http://shop.test/robots.txt", to: "http://shop.test/real-robots.txt")
        h.web.text("http://shop.test/real-robots.txt", "User-agent: *\nDisallow: /a\n")
        h.web.page("http://shop.test/", html("Shop", links: ["/a"]))
        let report = try h.run()
        #expect(!h.web.requested.contains("http://shop.test/a"))
        #expect(report.skipped["robots"] == 1)
    }

    @Test func redirectsIndexTheTargetAndStayInScope() throws {
        let h = try Harness()
        h.web.page("http://shop.test/", html("Shop", links: ["/old", "/away"]))
        h.web.redirect("http://shop.test/old", to: "http://shop.test/new")
        h.web.redirect("http://shop.test/away", to: "http://elsewhere.test/")
        h.web.page("http://shop.test/new", html("New home of the page"))
        let report = try h.run()
        #expect(try h.item("http://shop.test/new")?.title == "New home of the page")
        #expect(try h.item("http://shop.test/old") == nil)
        #expect(!h.web.requested.contains { $0.hasPrefix("http://elsewhere.test") }, "the redirect leaves the crawl's scope")
        #expect(report.skipped["redirect-out-of-scope"] == 1)
        #expect(report.redirects == 2)
    }

    @Test func aCanonicalCopyIsIndexedOnceUnderItsCanonical() throws {
        let h = try Harness()
        h.web.page("http://shop.test/", html("Shop", links: ["/print?id=1"]))
        h.web.page("http://shop.test/print?id=1", html("Lemon tart (print)", head: #"<link rel="canonical" href="/tart">"#))
        h.web.page("http://shop.test/tart", html("Lemon tart", head: #"<link rel="canonical" href="/tart">"#))
        let report = try h.run()
        #expect(h.web.requested.contains("http://shop.test/tart"), "the canonical is fetched on its own")
        #expect(try h.item("http://shop.test/tart")?.title == "Lemon tart")
        #expect(try h.item("http://shop.test/print?id=1") == nil)
        #expect(report.skipped["canonical"] == 1)
    }

    @Test func aCanonicalThatRobotsForbidsLeavesTheCopyStandingForIt() throws {
        let h = try Harness()
        h.web.text("http://shop.test/robots.txt", "User-agent: *\nDisallow: /tart\n")
        h.web.page("http://shop.test/", html("Shop", links: ["/print?id=1"]))
        h.web.page("http://shop.test/print?id=1", html("Lemon tart (print)", head: #"<link rel="canonical" href="/tart">"#))
        let report = try h.run()
        #expect(!h.web.requested.contains("http://shop.test/tart"))
        #expect(try h.item("http://shop.test/tart")?.title == "Lemon tart (print)", "indexed under its canonical id")
        #expect(report.skipped["canonical"] == nil)
    }

    @Test func requestsToAHostAreSpacedByTheDelay() throws {
        let h = try Harness(seeds: ["http://shop.test/", "http://blog.test/"])
        h.configuration.delay = 5
        h.configuration.perHostConnections = 1
        h.configuration.readsSitemaps = false
        for host in ["shop", "blog"] {
            h.web.page("http://\(host).test/", html(host, links: ["/1", "/2", "/3"]))
            for n in 1...3 { h.web.page("http://\(host).test/\(n)", html("\(host) \(n)")) }
        }
        _ = try h.run()
        for host in ["http://shop.test/", "http://blog.test/"] {
            let times = h.web.times(host)
            #expect(times.count == 5, "robots.txt and four pages")
            for (earlier, later) in zip(times, times.dropFirst()) {
                #expect(later.timeIntervalSince(earlier) >= 5, "\(host): \(later.timeIntervalSince(earlier)) s apart")
            }
        }
        let shop = h.web.times("http://shop.test/"), blog = h.web.times("http://blog.test/")
        #expect(abs(shop[1].timeIntervalSince(blog[1])) < 5, "two hosts are crawled side by side, not one after the other")
    }

    @Test func aRobotsCrawlDelayLengthensTheGap() throws {
        let h = try Harness()
        h.configuration.delay = 1
        h.configuration.readsSitemaps = false
        h.web.text("http://shop.test/robots.txt", "User-agent: *\nCrawl-delay: 20\n")
        h.web.page("http://shop.test/", html("Shop", links: ["/1"]))
        h.web.page("http://shop.test/1", html("One"))
        _ = try h.run()
        let times = h.web.times("http://shop.test/")
        #expect(times.count == 3)
        #expect(times[2].timeIntervalSince(times[1]) >= 20)
    }

    @Test func aTooManyRequestsAnswerBacksTheHostOffIntoTheNextRun() throws {
        let h = try Harness()
        h.configuration.readsSitemaps = false
        h.configuration.perHostConnections = 1
        h.web.page("http://shop.test/", html("Shop", links: ["/a", "/b"]))
        h.web.status("http://shop.test/a", 429, headers: [HTTPField("Retry-After", "120")])
        h.web.page("http://shop.test/b", html("B"))
        let first = try h.run()
        #expect(first.skipped["throttled"] == 1)
        #expect(first.skipped["host-backing-off"] == 1, "two minutes is longer than a run waits")
        #expect(!h.web.requested.contains("http://shop.test/b"))

        h.web.page("http://shop.test/a", html("A"))
        h.web.forgetRequests()
        _ = try h.run()
        #expect(h.web.requested.isEmpty, "still backing off at the start of the next run")

        h.time.advance(by: 121)
        h.web.forgetRequests()
        let third = try h.run()
        #expect(Set(h.web.requested) == ["http://shop.test/a", "http://shop.test/b"], "the postponed page is due again")
        #expect(third.indexed == 2)
    }

    @Test func aServiceUnavailableAnswerPausesTheHostWithinTheRun() throws {
        let h = try Harness()
        h.configuration.readsSitemaps = false
        h.configuration.perHostConnections = 1
        h.web.page("http://shop.test/", html("Shop", links: ["/busy", "/next"]))
        h.web.status("http://shop.test/busy", 503, headers: [HTTPField("Retry-After", "10")])
        h.web.page("http://shop.test/next", html("Next"))
        let report = try h.run()
        #expect(report.skipped["http-503"] == 1)
        let busy = try #require(h.web.times("http://shop.test/busy").first)
        let next = try #require(h.web.times("http://shop.test/next").first)
        #expect(next.timeIntervalSince(busy) >= 10, "nothing is sent to the host until Retry-After has passed")
    }

    @Test func goneAndNoindexPagesLoseTheirItems() throws {
        let h = try Harness()
        h.configuration.readsSitemaps = false
        h.web.page("http://shop.test/", html("Shop", links: ["/a", "/b", "/c"]))
        for path in ["a", "b", "c"] { h.web.page("http://shop.test/\(path)", html("Page \(path)")) }
        #expect(try h.run().indexed == 4)

        h.web.status("http://shop.test/a", 410)
        h.web.page("http://shop.test/b", html("Page b", head: #"<meta name="robots" content="noindex">"#))
        h.web.text("http://shop.test/robots.txt", "User-agent: *\nDisallow: /c\n")
        h.time.advance(by: 2 * 86_400)
        let second = try h.run()
        #expect(second.deleted == 3)
        for path in ["a", "b", "c"] { #expect(try h.item("http://shop.test/\(path)") == nil, "/\(path)") }
        #expect(try h.item("http://shop.test/")?.title == "Shop")
        #expect(second.skipped["http-410"] == 1 && second.skipped["noindex"] == 1 && second.skipped["robots"] == 1)
    }

    @Test func anUnchangedPageIsAskedForConditionallyAndKeepsItsItem() throws {
        let h = try Harness()
        h.configuration.readsSitemaps = false
        h.web.page("http://shop.test/", html("Shop"), headers: [HTTPField("ETag", "\"v1\"")])
        _ = try h.run()
        h.web.route("http://shop.test/") { request in
            request.headers.first("If-None-Match") == "\"v1\"" ? FetchResponse(request: request, status: 304) : FetchResponse(request: request, status: 500)
        }
        h.time.advance(by: 2 * 86_400)
        let second = try h.run()
        #expect(second.notModified == 1)
        #expect(try h.item("http://shop.test/")?.title == "Shop")
    }

    @Test func aFailingPageKeepsItsItemUntilTheGracePeriodEnds() throws {
        let h = try Harness()
        h.configuration.readsSitemaps = false
        h.web.page("http://shop.test/", html("Shop", links: ["/a"]))
        h.web.page("http://shop.test/a", html("Page a"))
        _ = try h.run()
        h.web.status("http://shop.test/a", 500)
        var failedRuns = 0
        var kept = true
        // Failures are retried after 1 h, 2 h, 4 h… up to a day; the grace period is a week.
        while kept, failedRuns < 30 {
            h.time.advance(by: 86_400)
            _ = try h.run()
            failedRuns += 1
            kept = try h.item("http://shop.test/a") != nil
        }
        #expect(!kept, "removed once failing for longer than the grace period")
        #expect(failedRuns >= 7 && failedRuns <= 9, "\(failedRuns) daily runs")
    }

    @Test func universalLinksComeFromTheSitesAssociationFile() throws {
        let h = try Harness(seeds: ["https://shop.test/"])
        h.configuration.readsSitemaps = false
        h.web.text("https://shop.test/.well-known/apple-app-site-association",
                   #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.shop"], "components": [{"/": "/items/*"}]}]}}"#,
                   contentType: "application/json")
        h.web.page("https://shop.test/", html("Shop", links: ["/items/1", "/about"]))
        h.web.page("https://shop.test/items/1", html("Item one"))
        h.web.page("https://shop.test/about", html("About"))
        _ = try h.run()
        let claimed = try #require(try h.item("https://shop.test/items/1")).apps.filter(\.isUniversalLink)
        #expect(claimed.map(\.bundleID) == ["com.shop"])
        #expect(try h.item("https://shop.test/about")?.apps.contains(where: \.isUniversalLink) == false)
        #expect(!h.web.requested.contains("https://shop.test/apple-app-site-association"), "the root is only tried when /.well-known/ has none")
    }
}
