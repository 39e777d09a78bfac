import Foundation
import Gzip
import HTTPServer
import HTTPTypes
import JSON
import SearchlightTestSupport
import Testing

/// `searchlight crawl` against fixture sites on 127.0.0.1, over HTTPS and HTTP.
@Suite(.serialized) struct CrawlRuleTests {
    /// A site exercising robots.txt, a sitemap, noindex, nofollow, redirects, duplicates,
    /// a canonical, a 404, and an association file.
    func site() throws -> (FixtureWeb, CrawlRunner) {
        let web = try FixtureWeb(tls: true)
        let host = "site.web.test"
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("""
            User-agent: *
            Disallow: /private
            Sitemap: https://\(host):\(web.port)/sitemap.xml
            """.utf8))
        web.file(host, "/sitemap.xml", contentType: "application/xml", bytes: Array("""
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <url><loc>https://\(host):\(web.port)/from-sitemap</loc><lastmod>2026-11-01</lastmod></url>
            <url><loc>https://elsewhere.web.test/x</loc></url>
            </urlset>
            """.utf8))
        web.file(host, "/.well-known/apple-app-site-association", contentType: "application/json", bytes: Array("""
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.alpha"], "components": [{"/": "/alpha"}]}]}}
            """.utf8))
        web.page(host, "/", html: page("Home", links: ["/alpha", "/private/secret", "/noindex", "/nofollow", "/redirect", "/dup1",
                                                       "/dup2", "/gone", "/alias", "https://external.web.test/", "/a?utm_source=x#frag"]))
        web.page(host, "/alpha", html: page("Alpha page", head: """
            <meta name="apple-itunes-app" content="app-id=1234567890, app-argument=alpha://item/1">
            <meta property="al:android:package" content="com.example.alpha"><meta property="al:android:url" content="alpha://item/1">
            """, body: "The alpha item, with a deep link."))
        web.page(host, "/alias", html: page("Alias of alpha", head: "<link rel=canonical href=\"/alpha\">", body: "Same thing."))
        web.page(host, "/noindex", html: page("Hidden page", links: ["/from-noindex"], head: "<meta name=robots content=noindex>"))
        web.page(host, "/from-noindex", html: page("Reached through a noindex page"))
        web.page(host, "/nofollow", html: page("No follow", links: ["/never"], head: "<meta name=robots content=nofollow>"))
        web.page(host, "/never", html: page("Never fetched"))
        web.route(host, "/redirect") { _ in .redirect(to: "/final") }
        web.page(host, "/final", html: page("Final destination", body: "Reached by a redirect."))
        let same = page("Twin", body: "Identical bodies are stored once.")
        web.page(host, "/dup1", html: same)
        web.page(host, "/dup2", html: same)
        web.page(host, "/from-sitemap", html: page("Listed in the sitemap"))
        web.page(host, "/a", html: page("Tracking stripped"))
        return (web, try CrawlRunner(web: web, hosts: [host]))
    }

    @Test func crawlsBySiteRules() throws {
        let (web, crawl) = try site()
        defer { web.stop(); crawl.remove() }
        let origin = web.origin("site.web.test")
        let (result, report) = try crawl.crawl([origin + "/"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(report)
        let requested = Set(web.requests)
        #expect(!requested.contains("site.web.test/private/secret"), "robots.txt disallows it")
        #expect(!requested.contains("site.web.test/never"), "a nofollow page's links are not followed")
        #expect(requested.contains("site.web.test/from-noindex"), "a noindex page's links are followed")
        #expect(requested.contains("site.web.test/from-sitemap"))
        #expect(requested.contains("site.web.test/a"), "the tracking parameter and fragment are dropped")
        #expect(!requested.contains { $0.contains("external") }, "another host is out of scope")
        #expect(web.requests.first == "site.web.test/robots.txt", "robots.txt comes first")
        #expect(json.skipped("robots") == 1)
        #expect(json.skipped("noindex") == 1)
        #expect(json.skipped("duplicate") == 1)
        #expect(json.skipped("canonical") == 1, "the alias names /alpha as canonical")
        #expect(json.skipped("http-404") == 1)
        #expect(json["redirects"] == 1)
        #expect(json["sitemaps"] == 1)
        #expect(json.skipped("sitemap-out-of-scope") == 1)
        #expect(json["fetched"]?.intValue == 13)

        let ids = Set(try crawl.search("page OR home OR final OR twin OR listed OR reached OR tracking").compactMap { $0["id"]?.stringValue })
        #expect(ids.contains(origin + "/final"), "the redirect's target is what is indexed")
        #expect(!ids.contains(origin + "/redirect"))
        #expect(!ids.contains(origin + "/noindex"))
        func alphaHits(_ extra: [String] = []) throws -> [JSONValue] {
            try crawl.search("alpha", extra).filter { $0["id"]?.stringValue?.hasSuffix("/alpha") == true || $0["id"]?.stringValue?.hasSuffix("/alias") == true }
        }
        let alpha = try alphaHits()
        #expect(alpha.count == 1, "the alias has alpha as canonical: one item")
        #expect(alpha.first?["id"] == .string(origin + "/alpha"))
        #expect(alpha.first?["title"] == "Alpha page")
        #expect(alpha.first?["apps"]?.arrayValue?.first?["universalLink"] == true, "the association file claims /alpha")
        let opened = try alphaHits(["--installed", "com.example.alpha"])
        #expect(opened.first?["action"] == ["type": "open-app", "url": .string(origin + "/alpha")])
        let android = try alphaHits(["--platform", "android", "--installed", "com.example.alpha"])
        #expect(android.first?["action"] == ["type": "open-app", "url": "alpha://item/1"])
    }

    @Test func archivesEveryFetchAsWARC() throws {
        let (web, crawl) = try site()
        defer { web.stop(); crawl.remove() }
        let (result, _) = try crawl.crawl([web.origin("site.web.test") + "/"])
        #expect(result.status == 0)
        let folder = URL(fileURLWithPath: crawl.data).appendingPathComponent("warc")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".warc.gz") }
        #expect(files.count == 1)
        let path = folder.appendingPathComponent(try #require(files.first)).path
        // A real reader: warcio, from PyPI (.ci/run installs it).
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            counts = {}
            for record in ArchiveIterator(open(sys.argv[1], 'rb')):
                counts[record.rec_type] = counts.get(record.rec_type, 0) + 1
                if record.rec_type == 'response':
                    record.content_stream().read()
            print(counts.get('warcinfo', 0), counts.get('request', 0), counts.get('response', 0), counts.get('revisit', 0))
            """, path]
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "warcio must be installed (pip install warcio) and read the file")
        let numbers = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        #expect(numbers.count == 4)
        guard numbers.count == 4 else { return }
        #expect(numbers[0] == 1)
        #expect(numbers[3] == 1, "the duplicate body is a revisit record")
        #expect(numbers[1] == numbers[2] + numbers[3], "one request per response")
        #expect(numbers[1] >= 17, "pages, robots.txt, sitemap and association files")
    }

    @Test func robotsErrorsDecideAccess() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.route("down.web.test", "/robots.txt") { _ in .text("down", status: 503) }
        web.page("down.web.test", "/", html: page("Should not be fetched"))
        web.route("open.web.test", "/robots.txt") { _ in .notFound }
        web.page("open.web.test", "/", html: page("Open site"))
        let crawl = try CrawlRunner(web: web, hosts: ["down.web.test", "open.web.test"])
        defer { crawl.remove() }
        let (_, report) = try crawl.crawl([web.origin("down.web.test") + "/", web.origin("open.web.test") + "/"])
        #expect(!web.requests.contains("down.web.test/"), "5xx on robots.txt: disallow all")
        #expect(web.requests.contains("open.web.test/"), "4xx on robots.txt: allow all")
        #expect(report?.skipped("robots-unreachable") == 1, "the host waits for a later run, its URLs untouched")
        #expect(report?["indexed"] == 1)
    }

    @Test func refusesLoopbackWithoutAllowPrivate() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        web.page("site.web.test", "/", html: page("Local"))
        let crawl = try CrawlRunner(web: web, hosts: ["site.web.test"])
        defer { crawl.remove() }
        let (result, report) = try crawl.crawl([web.origin("site.web.test") + "/"], allowPrivate: false)
        #expect(result.status == 1, "a run that could reach nothing fails, and says why")
        #expect(report?.skipped("refused-address") == 1)
        #expect(report?["indexed"] == 0)
        #expect(web.requests.isEmpty)
    }

    @Test func politenessSpacesRequestsToAHost() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "slowpoke.web.test"
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nCrawl-delay: 0.4\n".utf8))
        web.page(host, "/", html: page("Start", links: (1...4).map { "/p\($0)" }))
        for i in 1...4 { web.page(host, "/p\(i)", html: page("Page \(i)")) }
        let crawl = try CrawlRunner(web: web, hosts: [host])
        defer { crawl.remove() }
        let (_, report) = try crawl.crawl([web.origin(host) + "/"], ["--delay", "0.1", "--per-host", "2", "--no-sitemaps"])
        #expect(report?["fetched"] == 5)
        let times = web.timedRequests.map(\.time)
        let gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { $0 >= 0.35 }, "robots.txt's crawl-delay (0.4 s) lengthens --delay: \(gaps)")
    }

    @Test func aSecondRunDoesNotStartWhileOneRuns() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "busy.web.test"
        web.page(host, "/", html: page("Start", links: (1...6).map { "/p\($0)" }))
        for i in 1...6 { web.page(host, "/p\(i)", html: page("Page \(i)")) }
        let crawl = try CrawlRunner(web: web, hosts: [host])
        defer { crawl.remove() }
        let first = Process()
        first.executableURL = CommandRunner.executable
        first.arguments = ["crawl", web.origin(host) + "/", "--data", crawl.data, "--resolve", web.resolveEntry(host), "--allow-private",
                           "--delay", "0.5", "--no-sitemaps"]
        first.standardOutput = Pipe()
        first.standardError = Pipe()
        try first.run()
        defer { first.terminate() }
        let deadline = Date().addingTimeInterval(20)
        while web.requests.count < 2, Date() < deadline { usleep(20_000) }
        let (second, _) = try crawl.crawl([web.origin(host) + "/"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("Not crawling: run "))
        #expect(second.stdout.contains("(pid \(first.processIdentifier)) since "), "which run holds it, and since when")
    }
}

/// Servers that misbehave: every one is counted, none stalls or crashes the crawl.
@Suite(.serialized) struct HostileServerTests {
    @Test func slowEndlessBombLoopWrongTypeErrorsAndACalendar() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "hostile.web.test"
        let links = ["/slow", "/endless", "/bomb", "/loop1", "/png-html", "/plain-html", "/500", "/429", "/calendar?month=0"]
        web.page(host, "/", html: page("Hostile", links: links))
        web.route(host, "/slow") { _ in
            HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/html")], body: .stream {
                usleep(500_000)
                return Array("<p>slow".utf8)
            })
        }
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        web.route(host, "/endless") { _ in HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/html")], body: .stream { chunk }) }
        let bomb = Gzip.compress([UInt8](repeating: 0x20, count: 50 * 1024 * 1024), level: 9)
        web.route(host, "/bomb") { _ in
            HTTPServerResponse(status: 200, headers: [HTTPField("Content-Type", "text/html"), HTTPField("Content-Encoding", "gzip")], body: .bytes(bomb))
        }
        web.route(host, "/loop1") { _ in .redirect(to: "/loop2") }
        web.route(host, "/loop2") { _ in .redirect(to: "/loop1") }
        web.route(host, "/png-html") { _ in HTTPServerResponse(status: 200, contentType: "image/png", body: Array(page("Picture?").utf8)) }
        web.route(host, "/plain-html") { _ in HTTPServerResponse(status: 200, contentType: "text/plain", body: Array(page("Plain but HTML").utf8)) }
        web.route(host, "/500") { _ in .text("oops", status: 500) }
        web.route(host, "/429") { _ in HTTPServerResponse(status: 429, headers: [HTTPField("Retry-After", "1")]) }
        web.route(host, "/calendar") { request in
            let month = Int(request.queryValue("month") ?? "0") ?? 0
            return .html(page("Calendar month \(month)", links: ["/calendar?month=\(month + 1)", "/calendar?month=\(month - 1)"]))
        }
        let crawl = try CrawlRunner(web: web, hosts: [host])
        defer { crawl.remove() }
        let started = Date()
        let (result, report) = try crawl.crawl([web.origin(host) + "/"], ["--timeout", "1", "--max-body", "300000", "--max-pages-per-host", "30",
                                                                           "--no-sitemaps"])
        #expect(Date().timeIntervalSince(started) < 60, "nothing hangs the crawl")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(report)
        #expect(json.skipped("timeout") == 1)
        #expect(json.skipped("too-large") == 2, "the endless body and the gzip bomb (checked after decompression)")
        #expect(json.skipped("not-html") == 1, "HTML labelled image/png")
        #expect(json.skipped("http-500") == 1)
        #expect(json.skipped("throttled") == 1)
        #expect(json["redirects"]?.intValue ?? 0 >= 2, "the loop is followed once round, then the known URL stops it")
        let calendar = web.requests.filter { $0.contains("/calendar") }.count
        #expect(calendar > 5 && calendar <= 30, "the per-host cap stops the endless calendar: \(calendar)")
        #expect(json["hosts"]?[web.origin(host)]?["capped"] == true)
        #expect(try crawl.search("plain").first?["title"] == "Plain but HTML", "text/plain that is HTML is read as HTML")
    }
}

/// Redirects and sitemaps that try to lead the crawl astray.
@Suite(.serialized) struct ScopeAndSitemapTests {
    @Test func aRedirectToAnotherPortOfTheSameHostIsNotFollowed() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let other = try FixtureWeb()
        defer { other.stop() }
        let host = "ports.web.test"
        web.page(host, "/", html: page("Front", links: ["/jump"]))
        web.route(host, "/jump") { _ in .redirect(to: "http://\(host):\(other.port)/inside") }
        other.page(host, "/inside", html: page("Another server on another port"))
        let crawl = try CrawlRunner(web: web, hosts: [host])
        defer { crawl.remove() }
        let (result, report) = try crawl.crawl([web.origin(host) + "/"], ["--no-sitemaps", "--resolve", "\(host):\(other.port):127.0.0.1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report?.skipped("redirect-out-of-scope") == 1)
        #expect(other.requests.isEmpty, "the other port was never fetched: \(other.requests)")
        #expect(try crawl.search("another").isEmpty)
    }

    @Test func anOversizedFallbackSitemapIsCounted() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "bigmap.web.test"
        web.page(host, "/", html: page("Front"))
        let entry = "<url><loc>http://\(host):\(web.port)/p</loc></url>"
        let sitemap = "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
            + String(repeating: entry, count: 20_000) + "</urlset>"
        web.file(host, "/sitemap.xml", contentType: "application/xml", bytes: Array(sitemap.utf8))
        let crawl = try CrawlRunner(web: web, hosts: [host])
        defer { crawl.remove() }
        let (result, report) = try crawl.crawl([web.origin(host) + "/"], ["--max-body", "100000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report?.skipped("sitemap-too-large") == 1, "\(result.stdout)")
    }
}

/// A run killed at any moment resumes; the final index equals an uninterrupted run's.
@Suite(.serialized) struct CrawlResumeTests {
    @Test func aKilledRunResumesToTheSameIndex() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "big.web.test"
        for i in 0..<150 {
            let links = [(i * 7 + 1) % 150, (i * 11 + 3) % 150, (i + 1) % 150].map { "/item/\($0)" }
            web.page(host, i == 0 ? "/" : "/item/\(i)", html: page("Item number \(i)", links: links, body: "Body of item \(i), word\(i % 13), about \(distinctWords(i))."))
        }
        web.page(host, "/item/0", html: page("Item number 0", links: ["/"]))
        let reference = try CrawlRunner(web: web, hosts: [host])
        defer { reference.remove() }
        let (full, _) = try reference.crawl([web.origin(host) + "/"], ["--no-sitemaps"])
        #expect(full.status == 0, "\(full.stderr)")

        let interrupted = try CrawlRunner(web: web, hosts: [host])
        defer { interrupted.remove() }
        let before = web.requests.count
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["crawl", web.origin(host) + "/", "--data", interrupted.data, "--resolve", web.resolveEntry(host), "--allow-private",
                             "--delay", "0.02", "--per-host", "1", "--no-sitemaps"]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while web.requests.count - before < 60, process.isRunning, Date() < deadline { usleep(2_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "killed mid-run")
        let (resumed, report) = try interrupted.crawl([web.origin(host) + "/"], ["--no-sitemaps"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect((report?["fetched"]?.intValue ?? 0) < 150, "the second run only fetches what the first did not record")

        #expect(resumed.stderr.contains("took over the lock left by run"), "the killed run's lock is taken over")
        /// Every item as a user sees it, item by item (the score aside: it weighs freshness).
        func items(_ crawl: CrawlRunner) throws -> [String: JSONValue] {
            var map: [String: JSONValue] = [:]
            for hit in try crawl.search("item", ["--limit", "1000"]) {
                var fields = hit.objectValue ?? JSONObject()
                fields["score"] = nil
                map[hit["id"]?.stringValue ?? ""] = .object(fields)
            }
            return map
        }
        let expected = try items(reference)
        #expect(expected.count == 151, "the home page and 150 item pages")
        #expect(try items(interrupted) == expected)
    }
}

@Suite struct DemoTests {
    @Test func theDemoShowsEveryAction() throws {
        let result = try CommandRunner.run(["demo"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        for action in ["tap: open-app", "tap: open-web", "tap: install-app"] {
            #expect(result.stdout.contains(action), "\(action)")
        }
        #expect(result.stdout.contains("Becky Lin"))
        #expect(result.stdout.contains("篮球直播"))
        #expect(result.stdout.contains("Also searched headlmap as headlamp."))
        #expect(result.stdout.contains("rendered 4 pages in a browser"), "Tartine's home page and its three recipes")
        #expect(result.stdout.contains("1. Quince frangipane tart"), "found only once rendered")
        #expect(result.stdout.contains("tap: open-app tartine://recipe/quince-frangipane-tart"))
    }

    @Test func aCopiedBinaryWithoutTheDemoSitesSaysSo() throws {
        let folder = try TemporaryDirectory("demo-copy")
        defer { folder.remove() }
        let copy = URL(fileURLWithPath: folder.path).appendingPathComponent("searchlight")
        try FileManager.default.copyItem(at: CommandRunner.executable, to: copy)
        let result = try CommandRunner.run(["demo"], binary: copy)
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: the demo sites are missing: Searchlight_DemoWeb.resources"))
    }
}

/// `crawl --every` and `status`, as a scheduler or an operator runs them.
@Suite(.serialized) struct ScheduledCommandTests {
    func smallSite() throws -> (FixtureWeb, CrawlRunner, String) {
        let web = try FixtureWeb()
        let host = "cron.web.test"
        web.page(host, "/", html: page("Cron home", links: ["/one", "/two"]))
        web.page(host, "/one", html: page("First page"))
        web.page(host, "/two", html: page("Second page"))
        return (web, try CrawlRunner(web: web, hosts: [host]), web.origin(host))
    }

    @Test func statusShowsTheIndexTheFrontierAndTheRuns() throws {
        let (web, crawl, origin) = try smallSite()
        defer { web.stop(); crawl.remove() }
        let missing = try CommandRunner.run(["status", "--data", crawl.data])
        #expect(missing.status == 1, "no data folder yet")
        #expect(missing.stderr.contains("no data folder"))
        let (result, _) = try crawl.crawl([origin + "/"])
        #expect(result.status == 0)
        let status = try CommandRunner.run(["status", "--data", crawl.data, "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let json = try JSONParser.parse(status.stdout)
        #expect(json["index"]?["items"] == 3)
        #expect(json["index"]?["bySource"]?["crawled"] == 3)
        #expect(json["urls"]?["known"] == 3)
        #expect(json["urls"]?["done"] == 3)
        #expect(json["urls"]?["due"] == 0, "everything was just fetched")
        #expect(json["urls"]?["hosts"] == 1)
        #expect(json["running"] == .null)
        #expect(json["runs"]?.arrayValue?.count == 1)
        #expect(json["runs"]?.arrayValue?.first?["fetched"] == 3)
        let text = try CommandRunner.run(["status", "--data", crawl.data])
        #expect(text.stdout.contains("index: 3 items (3 crawled)"))
        #expect(text.stdout.contains("frontier: 3 URLs on 1 host; 0 due now"))
        #expect(text.stdout.contains("last runs:"))
    }

    /// `crawl --every 1s` on the small site, started; its output pipe and a count of its run
    /// reports.
    private func startEvery(_ web: FixtureWeb, _ crawl: CrawlRunner, _ origin: String) throws -> (Process, Pipe, () -> Int) {
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["crawl", origin + "/", "--data", crawl.data, "--resolve", web.resolveEntry("cron.web.test"), "--allow-private",
                             "--delay", "0", "--every", "1s"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let runs = URL(fileURLWithPath: crawl.data).appendingPathComponent("runs")
        return (process, output, { ((try? FileManager.default.contentsOfDirectory(atPath: runs.path)) ?? []).count })
    }

    @Test func everyRunsOnItsIntervalUntilSIGTERM() throws {
        let (web, crawl, origin) = try smallSite()
        defer { web.stop(); crawl.remove() }
        let (process, output, reports) = try startEvery(web, crawl, origin)
        let deadline = Date().addingTimeInterval(30)
        while reports() < 3, process.isRunning, Date() < deadline { usleep(50_000) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "SIGTERM ends it cleanly")
        #expect(reports() >= 3, "a run every second")
        #expect(text.contains("Next run at "))
        #expect(web.requests.filter { $0.hasSuffix("/one") }.count == 1, "later runs find nothing due")
    }

    /// Ctrl-C ends a schedule with the status a shell expects of it, 130 (issue 56); SIGTERM,
    /// a service manager's stop, with 0 (above).
    @Test func ctrlCEndsItWith130() throws {
        let (web, crawl, origin) = try smallSite()
        defer { web.stop(); crawl.remove() }
        let (process, _, reports) = try startEvery(web, crawl, origin)
        let deadline = Date().addingTimeInterval(30)
        while reports() == 0, process.isRunning, Date() < deadline { usleep(50_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
    }
}
