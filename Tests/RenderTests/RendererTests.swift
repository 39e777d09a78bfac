import Fetch
import Foundation
import HTTPTypes
import HTTPServer
import Markup
import Render
import Synchronization
import SearchlightTestSupport
import Testing
import WebURL

/// Pages rendered in a real headless Chromium, their scripts' requests served by a fixture
/// site on 127.0.0.1 through the crawler's own client.
@Suite(.serialized) struct RendererTests {
    static let shell = """
        <!doctype html><html><head><title>Loading</title><script src="/app.js"></script></head>
        <body><div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript></body></html>
        """

    static func web() throws -> FixtureWeb {
        let web = try FixtureWeb()
        web.page("shop.test", "/", html: shell)
        web.file("shop.test", "/app.js", contentType: "text/javascript", bytes: ClientRenderedApp.script(data: "/api/recipe.json"))
        web.file("shop.test", "/api/recipe.json", contentType: "application/json",
                 bytes: Array(#"{"id": 42, "name": "Lemon tart", "text": "A sharp lemon curd in a sweet pastry case, baked until just set."}"#.utf8))
        return web
    }

    static func renderer(_ web: FixtureWeb, allowPrivate: Bool = true, spacing: Double = 0, browser: Browser.Configuration = .init(),
                         configure: (inout Renderer.Configuration) -> Void = { _ in }) -> Renderer {
        var fetch = FetchConfiguration(userAgent: "Searchlightbot/test")
        fetch.addressPolicy = allowPrivate ? .any : .publicOnly
        fetch.resolve = [web.resolveEntry("shop.test")]
        var configuration = Renderer.Configuration()
        configure(&configuration)
        return Renderer(configuration: configuration, browser: Browser(configuration: browser),
                        subresources: CrawlerSubresources(configuration: fetch, productToken: "searchlightbot", spacing: spacing))
    }

    /// A request `/hold` the site answers only once the returned semaphore is signalled (or
    /// after 20 s): a page that asks for it never settles.
    static func holdOpen(_ web: FixtureWeb) -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        web.route("shop.test", "/hold") { _ in
            _ = release.wait(timeout: .now() + 20)
            return .text("late")
        }
        return release
    }

    static func render(_ renderer: Renderer, _ web: FixtureWeb, path: String = "/", html: String = shell) -> RenderOutcome {
        let url = WebURL(web.origin("shop.test") + path)!
        return renderer.render(url, document: RenderDocument(status: 200, headers: [HTTPField("Content-Type", "text/html; charset=utf-8")], body: Array(html.utf8)))
    }

    static func markup(_ outcome: RenderOutcome, _ web: FixtureWeb) -> PageMarkup? {
        outcome.html.map { MarkupExtractor().extract($0, url: WebURL(web.origin("shop.test") + "/"), response: .init(contentType: "text/html; charset=utf-8")) }
    }

    @Test func aShellIsReadAsTheBrowserBuildsIt() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web)
        defer { renderer.browser.kill() }
        let outcome = Self.render(renderer, web)
        #expect(outcome.failure == nil)
        let markup = try #require(Self.markup(outcome, web))
        #expect(markup.title == "Lemon tart")
        #expect(markup.smartAppBanner?.appArgument == "tarts://recipe/42")
        #expect(markup.schema.name == "Lemon tart")
        #expect(markup.bodyText.contains("sharp lemon curd"))
        #expect(outcome.fetched == 2, "the script and its data, through the crawler's client")
        #expect(outcome.requests == [web.origin("shop.test"): 2], "counted against the host's politeness")
        #expect(web.requests.contains { $0.hasSuffix("/api/recipe.json") })
        #expect(!web.requests.contains { $0 == "shop.test/" }, "the page itself is not fetched again")
    }

    /// The script and its data come from one host: the second request waits for the crawl's
    /// spacing, as a page fetch would.
    @Test func aPagesRequestsToOneHostAreSpaced() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web, spacing: 0.4)
        defer { renderer.browser.kill() }
        let outcome = Self.render(renderer, web)
        #expect(outcome.failure == nil)
        let times = web.timedRequests.filter { $0.target.hasSuffix("/app.js") || $0.target.hasSuffix("/recipe.json") }.map(\.time)
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1].timeIntervalSince(times[0]) >= 0.35) }
    }

    @Test func aPrivateAddressIsRefusedAndThePageStillRenders() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web, allowPrivate: false)
        defer { renderer.browser.kill() }
        let outcome = Self.render(renderer, web)
        #expect(outcome.failure == nil)
        #expect(outcome.refused[.address] == 1, "app.js on 127.0.0.1 refused by the address policy")
        #expect(Self.markup(outcome, web)?.title == "Loading")
        #expect(web.requests.filter { !$0.hasSuffix("/robots.txt") }.isEmpty)
    }

    @Test func aScriptThatLoopsIsCutOffAndTheBrowserGoesOn() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web) { $0.timeout = 3 }
        defer { renderer.browser.kill() }
        let looping = "<!doctype html><html><head><title>Spin</title></head><body><div id=root></div><script>for(;;){}</script></body></html>"
        let outcome = Self.render(renderer, web, html: looping)
        #expect(outcome.failure == .timeout)
        let next = Self.render(renderer, web)
        #expect(next.failure == nil)
        #expect(Self.markup(next, web)?.title == "Lemon tart")
    }

    /// A script that navigates away is refused, and the browser's error page it leaves is
    /// not taken for the page.
    @Test func aPageThatNavigatesAwayIsNotReadAsTheErrorPage() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web)
        defer { renderer.browser.kill() }
        let leaving = "<!doctype html><html><head><title>Leaving</title></head><body><div id=root></div><script>location.href = '/elsewhere';</script></body></html>"
        let outcome = Self.render(renderer, web, html: leaving)
        #expect(outcome.failure == .failed)
        #expect(outcome.html == nil)
        #expect(!web.requests.contains { $0.hasSuffix("/elsewhere") }, "the navigation is not fetched")
    }

    @Test func aHugeDocumentIsNotRead() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web) { $0.maximumDocumentCharacters = 1 << 20 }
        defer { renderer.browser.kill() }
        let huge = "<!doctype html><html><head><title>Big</title></head><body><div id=root></div><script>document.getElementById('root').textContent = 'x'.repeat(3 << 20);</script></body></html>"
        #expect(Self.render(renderer, web, html: huge).failure == .tooLarge)
    }

    @Test func aBrowserKilledMidRenderIsStartedAgainAndThePageRenderedOnce() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web)
        defer { renderer.browser.kill() }
        // The data request is answered only after the browser has been killed.
        let killed = DispatchSemaphore(value: 0)
        let once = Mutex(true)
        web.route("shop.test", "/api/recipe.json") { _ in
            let first = once.withLock { first -> Bool in
                defer { first = false }
                return first
            }
            if first {
                renderer.browser.kill()
                killed.signal()
            }
            return HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "application/json")],
                                      body: .bytes(Array(#"{"id": 7, "name": "Plum tart", "text": "Plums."}"#.utf8)))
        }
        let outcome = Self.render(renderer, web)
        #expect(killed.wait(timeout: .now()) == .success)
        #expect(renderer.browser.starts == 2)
        #expect(outcome.failure == nil)
        #expect(Self.markup(outcome, web)?.title == "Plum tart")
    }

    /// `--render-concurrency 1`: three pages asked at once render one after another (the
    /// data request of one is never open while another's is).
    @Test func rendersAtOnceAreBounded() throws {
        let web = try Self.web()
        defer { web.stop() }
        let open = Mutex((now: 0, most: 0))
        web.route("shop.test", "/api/recipe.json") { _ in
            open.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            usleep(200_000)
            open.withLock { $0.now -= 1 }
            return HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "application/json")],
                                      body: .bytes(Array(#"{"id": 1, "name": "Pear tart", "text": "Pears."}"#.utf8)))
        }
        let renderer = Self.renderer(web) { $0.concurrency = 1 }
        defer { renderer.browser.kill() }
        let outcomes = Mutex<[RenderOutcome]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let outcome = Self.render(renderer, web)
            outcomes.withLock { $0.append(outcome) }
        }
        #expect(outcomes.withLock { $0.allSatisfy { $0.failure == nil } })
        #expect(open.withLock { $0.most } == 1)
    }

    /// A page that allocates typed arrays past the hard bound (outside the script heap's
    /// limit) ends as render-too-large while it runs, its browser killed, and the next page
    /// renders in a new one (issue 57: 16 × 256 MiB took Chromium to 4.5 GB and was counted
    /// rendered).
    @Test func aPageAllocatingPastTheHardBoundIsStoppedWhileItRuns() throws {
        let web = try Self.web()
        defer { web.stop() }
        var bound = Browser.Configuration()
        bound.maximumResidentBytes = 512 << 20
        bound.hardResidentBytes = 768 << 20
        let renderer = Self.renderer(web, browser: bound) { $0.timeout = 90 }
        defer { renderer.browser.kill() }
        // 64 MiB a step, every 50 ms, each array touched so that its pages are real; a request
        // the site holds open keeps the page from settling (before, it ran to the render
        // timeout and was read).
        let release = Self.holdOpen(web)
        defer { release.signal() }
        let hog = """
            <!doctype html><html><head><title>Hog</title></head><body><p>Filling</p><script>
            fetch('/hold');
            const kept = []; const step = () => { const a = new Uint8Array(64 << 20); a.fill(7); kept.push(a); if (kept.length < 64) setTimeout(step, 50); };
            step();</script></body></html>
            """
        let started = Date()
        let outcome = Self.render(renderer, web, html: hog)
        #expect(outcome.failure == .tooLarge, "\(String(describing: outcome.failure))")
        // Half the render timeout, as below: it holds on a busy machine.
        #expect(Date().timeIntervalSince(started) < 45, "stopped while it ran, not at the 90 s render timeout")
        #expect(renderer.browser.processID == nil, "the browser was killed")
        #expect(Self.render(renderer, web).failure == nil, "the next page renders in a new browser")
    }

    /// A document that grows in a loop is cut off once it passes the length bound, while the
    /// page runs, not at the render timeout (issue 57: 60 M characters, 3.6 GB).
    @Test func aDocumentGrowingInALoopIsStoppedAtTheBound() throws {
        let web = try Self.web()
        defer { web.stop() }
        let renderer = Self.renderer(web) {
            $0.maximumDocumentCharacters = 1 << 20
            $0.timeout = 90
        }
        defer { renderer.browser.kill() }
        // A request the site holds open keeps the page from settling: before, it grew until the
        // render timeout and only then was found too large.
        let release = Self.holdOpen(web)
        defer { release.signal() }
        let grower = """
            <!doctype html><html><head><title>Grower</title></head><body><div id=root></div><script>
            fetch('/hold');
            const root = document.getElementById('root'); const chunk = 'x'.repeat(256 << 10);
            setInterval(() => { const p = document.createElement('p'); p.textContent = chunk; root.appendChild(p); }, 20);
            </script></body></html>
            """
        let started = Date()
        let outcome = Self.render(renderer, web, html: grower)
        #expect(outcome.failure == .tooLarge, "\(String(describing: outcome.failure))")
        // Half the render timeout: a bound that holds on a busy machine and still tells the two apart.
        #expect(Date().timeIntervalSince(started) < 45, "stopped as it grew, not at the 90 s render timeout")
    }

    /// A browser past its memory bound is started again once no render uses it.
    @Test func aBrowserPastItsMemoryBoundIsStartedAgain() throws {
        let web = try Self.web()
        defer { web.stop() }
        var fetch = FetchConfiguration(userAgent: "Searchlightbot/test")
        fetch.addressPolicy = .any
        fetch.resolve = [web.resolveEntry("shop.test")]
        var bound = Browser.Configuration()
        bound.maximumResidentBytes = 1
        bound.hardResidentBytes = 8 << 30
        let renderer = Renderer(browser: Browser(configuration: bound),
                                subresources: CrawlerSubresources(configuration: fetch, productToken: "searchlightbot"))
        defer { renderer.browser.kill() }
        #expect(Self.render(renderer, web).failure == nil)
        #expect(renderer.browser.processID == nil, "stopped once the render ended")
        #expect(Self.render(renderer, web).failure == nil)
        #expect(renderer.browser.starts == 2)
    }
}
