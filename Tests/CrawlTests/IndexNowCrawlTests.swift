import Foundation
import Glibc
import HTTPServer
import JSON
import SearchlightTestSupport
import Testing

/// `serve --indexnow` over a crawl's data folder, a real site on 127.0.0.1 with its key file:
/// a notice for a page nothing links to makes it due, and the next crawl run indexes it
/// (robots.txt still holds); wrong keys, other hosts and hosts the crawl never visited are
/// refused, and no key file is fetched from a host the crawl does not know.
@Suite struct IndexNowCrawlTests {
    static let key = "5e1f0c2a9b8d7e6f"

    @Test func aNoticeMakesAnUnlinkedPageCrawledAtTheNextRun() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "127.0.0.1"
        web.page(host, "/", html: "<title>Harbour shop</title><p>Lanterns and ropes for the harbour.</p><a href=/ropes>Ropes</a>")
        web.page(host, "/ropes", html: "<title>Ropes</title><p>Ropes of every length for every harbour.</p>")
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nDisallow: /private/\n".utf8))
        web.file(host, "/\(Self.key).txt", contentType: "text/plain", bytes: Array("\(Self.key)\n".utf8))
        let crawl = try CrawlRunner(web: web, hosts: [])
        defer { crawl.remove() }
        let origin = web.origin(host)
        let (first, _) = try crawl.crawl([origin + "/"], ["--no-sitemaps"])
        #expect(first.status == 0, "\(first.stderr)")

        let serve = try CommandRunner.start(["serve", "--data", crawl.data, "--listen", "127.0.0.1:0", "--cache-seconds", "0",
                                             "--indexnow", "--allow-private"])
        defer { serve.stop() }
        let base = try #require(serve.firstLine.split(separator: " ").last.map(String.init), "\(serve.firstLine)")
        let api = APIClient(base: base)
        defer { api.shutdown() }

        // Pages the site added since, linked from nowhere.
        web.page(host, "/zanzibar", html: "<title>Zanzibar lanterns</title><p>Brass lanterns from Zanzibar, new this week.</p>")
        web.page(host, "/private/secret", html: "<title>Zanzibar secret</title><p>Not for crawlers.</p>")
        let notice: JSONValue = ["host": .string(host), "key": .string(Self.key),
                                 "urlList": .array([.string(origin + "/zanzibar"), .string(origin + "/private/secret")])]
        let accepted = api.call("POST", "/indexnow", json: notice, contentType: "application/json; charset=utf-8")
        #expect(accepted.status == 202, "\(accepted.text)")
        #expect(accepted.json?["added"] == 2 && accepted.json?["due"] == 2, "\(accepted.text)")
        let single = api.call("GET", "/indexnow?url=" + (origin + "/ropes").addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&key=\(Self.key)")
        #expect(single.status == 202 && single.json?["added"] == 0, "a known URL made due again: \(single.text)")

        let keyFetches = { web.requests.filter { $0.hasSuffix("/\(Self.key).txt") }.count }
        #expect(keyFetches() == 1, "the key was fetched once and then trusted")
        let wrong = api.call("POST", "/indexnow", json: ["host": .string(host), "key": "0000000000000000", "urlList": .array([.string(origin + "/x")])])
        #expect(wrong.status == 403 && wrong.errorCode == "key-not-valid", "\(wrong.text)")
        let otherHost = api.call("POST", "/indexnow", json: ["host": .string(host), "key": .string(Self.key), "urlList": ["https://elsewhere.example/"]])
        #expect(otherHost.status == 422 && otherHost.errorCode == "url-not-of-host", "\(otherHost.text)")
        let before = web.requests.count
        let unknown = api.call("GET", "/indexnow?url=http%3A%2F%2Flocalhost%3A\(web.port)%2Fa&key=\(Self.key)")
        #expect(unknown.status == 422 && unknown.errorCode == "unknown-host", "\(unknown.text)")
        #expect(web.requests.count == before, "nothing fetched for a host the crawl never visited")
        let tooMany = api.call("POST", "/indexnow", json: ["host": .string(host), "key": .string(Self.key),
                                                           "urlList": .array((0...10_000).map { .string(origin + "/p\($0)") })])
        #expect(tooMany.status == 400, "\(tooMany.status) \(tooMany.text.prefix(200))")
        let notJSON = api.call("POST", "/indexnow", body: Array("url=x".utf8), contentType: "application/x-www-form-urlencoded")
        #expect(notJSON.status == 415)
        serve.stop()

        let (second, report) = try crawl.crawl([origin + "/"], ["--no-sitemaps"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try crawl.search("zanzibar").compactMap { $0["url"]?.stringValue } == [origin + "/zanzibar"], "\(String(describing: report))")
        #expect(!web.requests.contains { $0.contains("/private/") }, "robots.txt still holds for noticed URLs")
    }

    /// Without `--indexnow` the path is not served.
    /// A key file is read where keyLocation says, never through a redirect: an open redirect
    /// to any uploaded file (or to another port) proves nothing (issue 59's receiver findings).
    @Test func aKeyFileBehindARedirectProvesNothing() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "127.0.0.1"
        let key = "7a7a7a7a7a7a7a7a"
        web.page(host, "/", html: "<title>Harbour shop</title><p>Lanterns and ropes for the harbour.</p>")
        web.file(host, "/uploads/avatar.txt", contentType: "text/plain", bytes: Array("\(key)\n".utf8))
        web.route(host, "/go") { _ in .redirect(to: "/uploads/avatar.txt", status: 302) }
        web.route(host, "/\(key).txt") { _ in .redirect(to: "/uploads/avatar.txt", status: 301) }
        let crawl = try CrawlRunner(web: web, hosts: [])
        defer { crawl.remove() }
        let origin = web.origin(host)
        #expect(try crawl.crawl([origin + "/"], ["--no-sitemaps"]).0.status == 0)
        let serve = try CommandRunner.start(["serve", "--data", crawl.data, "--listen", "127.0.0.1:0", "--cache-seconds", "0",
                                             "--indexnow", "--allow-private"])
        defer { serve.stop() }
        let api = APIClient(base: try #require(serve.firstLine.split(separator: " ").last.map(String.init)))
        defer { api.shutdown() }
        for location in [origin + "/go", origin + "/\(key).txt"] {
            let notice: JSONValue = ["host": .string(host), "key": .string(key), "keyLocation": .string(location), "urlList": .array([.string(origin + "/x")])]
            let refused = api.call("POST", "/indexnow", json: notice)
            #expect(refused.status == 403 && refused.text.contains("without a redirect"), "\(location): \(refused.text)")
        }
        #expect(!web.requests.contains { $0.hasSuffix("/uploads/avatar.txt") }, "the redirect was not followed")
    }

    /// `crawl --continuous` and `serve --indexnow` on one data folder (issue 59): a notice for
    /// a page nothing links to makes it searchable without any scheduled run — the serve
    /// wakes the sleeping crawl through the folder's pipe — and SIGTERM ends the crawl cleanly.
    @Test func aContinuousCrawlMakesANotifiedPageSearchable() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "127.0.0.1"
        web.page(host, "/", html: "<title>Harbour shop</title><p>Lanterns and ropes for the harbour.</p>")
        web.file(host, "/\(Self.key).txt", contentType: "text/plain", bytes: Array("\(Self.key)\n".utf8))
        let crawl = try CrawlRunner(web: web, hosts: [])
        defer { crawl.remove() }
        let origin = web.origin(host)
        let continuous = Process()
        continuous.executableURL = CommandRunner.executable
        continuous.arguments = ["crawl", origin + "/", "--data", crawl.data, "--continuous", "--allow-private", "--delay", "0", "--no-sitemaps"]
        let output = Pipe()
        continuous.standardOutput = output
        continuous.standardError = Pipe()
        try continuous.run()
        defer { if continuous.isRunning { continuous.terminate() } }
        func found(_ query: String) -> Bool {
            (try? CommandRunner.run(["search", query, "--data", crawl.data, "--json"]).stdout.contains(origin)) ?? false
        }
        func waitFor(_ query: String, seconds: Double) -> Double? {
            let started = Date()
            while Date().timeIntervalSince(started) < seconds {
                if found(query) { return Date().timeIntervalSince(started) }
                usleep(100_000)
            }
            return nil
        }
        #expect(waitFor("harbour lanterns", seconds: 60) != nil, "the seed is crawled and committed while the run stays alive")

        let serve = try CommandRunner.start(["serve", "--data", crawl.data, "--listen", "127.0.0.1:0", "--cache-seconds", "0",
                                             "--indexnow", "--allow-private"])
        defer { serve.stop() }
        let api = APIClient(base: try #require(serve.firstLine.split(separator: " ").last.map(String.init)))
        defer { api.shutdown() }
        web.page(host, "/zanzibar", html: "<title>Zanzibar lanterns</title><p>Brass lanterns from Zanzibar, new this week.</p>")
        let notice: JSONValue = ["host": .string(host), "key": .string(Self.key), "urlList": .array([.string(origin + "/zanzibar")])]
        #expect(api.call("POST", "/indexnow", json: notice).status == 202)
        let latency = waitFor("zanzibar", seconds: 60)
        #expect(latency != nil, "the notified page became searchable with no scheduled run")
        #expect(continuous.isRunning, "the run is still alive")
        // The notice's latency is counted once the page's record follows its item.
        let counted = "searchlight_crawl_notice_to_searchable_seconds_count 1"
        let deadline = Date().addingTimeInterval(60)
        var metrics = ""
        while !metrics.contains(counted), Date() < deadline {
            metrics = api.call("GET", "/metrics").text
            if !metrics.contains(counted) { usleep(100_000) }
        }
        #expect(metrics.contains(counted), "\(metrics)")
        #expect(metrics.contains("searchlight_crawl_due_urls 0"), "\(metrics)")
        #expect(metrics.contains("searchlight_crawl_fetch_to_searchable_seconds_count 2"), "the seed and the notified page")
        let status = try CommandRunner.run(["status", "--data", crawl.data]).stdout
        #expect(status.contains("searchable: notice → searchable p50 ≤"), "\(status)")

        kill(continuous.processIdentifier, SIGTERM)
        continuous.waitUntilExit()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(continuous.terminationStatus == 0, "\(report)")
        #expect(report.contains("fetched 2 pages"), "\(report)")
        #expect(report.contains("searchable: notice → searchable p50 ≤") && report.contains("(1 page); fetch → searchable"), "\(report)")
    }

    /// A notice that comes while a continuous crawl works through a host's queue goes ahead
    /// of the URLs it claimed and has not sent: the notified page is the next request the
    /// host's spacing allows, not the last (issue 59).
    @Test func aNoticeGoesAheadOfTheQueuedWork() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "127.0.0.1"
        let pages = 30
        web.page(host, "/", html: "<title>Lanterns</title><p>Every lantern we make.</p>" + (0..<pages).map { "<a href=/p\($0)>\($0)</a>" }.joined())
        for n in 0..<pages { web.page(host, "/p\(n)", html: "<title>Lantern \(n)</title><p>Lantern number \(n), in brass and glass, word\(n)x.</p>") }
        web.page(host, "/late", html: "<title>A late lantern</title><p>Announced by its maker.</p>")
        web.file(host, "/\(Self.key).txt", contentType: "text/plain", bytes: Array(Self.key.utf8))
        let crawl = try CrawlRunner(web: web, hosts: [])
        defer { crawl.remove() }
        let origin = web.origin(host)
        let continuous = Process()
        continuous.executableURL = CommandRunner.executable
        continuous.arguments = ["crawl", origin + "/", "--data", crawl.data, "--continuous", "--allow-private", "--delay", "0.3",
                                "--no-sitemaps", "--no-trap-detection", "--progress", "none"]
        (continuous.standardOutput, continuous.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try continuous.run()
        defer {
            continuous.terminate()
            continuous.waitUntilExit()
        }
        func fetchedPages() -> [String] {
            web.requests.map { String($0.drop { $0 != "/" }) }.filter { $0.hasPrefix("/p") || $0 == "/late" }
        }
        let deadline = Date().addingTimeInterval(120)
        while fetchedPages().isEmpty, Date() < deadline { usleep(20_000) }
        let serve = try CommandRunner.start(["serve", "--data", crawl.data, "--listen", "127.0.0.1:0", "--indexnow", "--allow-private"])
        defer { serve.stop() }
        let api = APIClient(base: try #require(serve.firstLine.split(separator: " ").last.map(String.init)))
        defer { api.shutdown() }
        while fetchedPages().count < 3, Date() < deadline { usleep(20_000) }
        let before = fetchedPages().count
        let notice: JSONValue = ["host": .string(host), "key": .string(Self.key), "urlList": .array([.string(origin + "/late")])]
        #expect(api.call("POST", "/indexnow", json: notice).status == 202)
        while !fetchedPages().contains("/late"), Date() < deadline { usleep(20_000) }
        let order = fetchedPages()
        let position = try #require(order.firstIndex(of: "/late"), "the notified page was fetched: \(order)")
        #expect(position <= before + 2, "fetched within two requests of the notice, not after the \(pages - before) queued pages: \(order)")
    }

    @Test func withoutTheFlagThereIsNoReceiver() throws {
        let folder = try TemporaryDirectory("indexnow-off")
        defer { folder.remove() }
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        let serve = try CommandRunner.start(["serve", "--data", folder.url.path, "--listen", "127.0.0.1:0"])
        defer { serve.stop() }
        let base = try #require(serve.firstLine.split(separator: " ").last.map(String.init), "\(serve.firstLine)")
        let api = APIClient(base: base)
        defer { api.shutdown() }
        #expect(api.call("GET", "/indexnow?url=https%3A%2F%2Fa.example%2F&key=\(Self.key)").status == 404)
        #expect(try CommandRunner.run(["serve", "--data", folder.url.path, "--allow-private"]).status == 64, "--allow-private needs --indexnow")
    }
}
