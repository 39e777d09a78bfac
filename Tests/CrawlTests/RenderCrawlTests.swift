import Foundation
import HTTPServer
import HTTPTypes
import JSON
import SearchlightTestSupport
import Testing

/// A client-rendered app site crawled with a real headless Chromium: the shell is rendered
/// and indexed as the browser builds it (title, text, Smart App Banner, JSON-LD, links the
/// script writes); a page written on the server is not rendered; a script that loops is cut
/// off and counted while the crawl goes on; a script's request robots.txt forbids is not made.
@Suite struct RenderCrawlTests {
    static let host = "app.web.test"

    static func site() throws -> (FixtureWeb, CrawlRunner) {
        let web = try FixtureWeb()
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nDisallow: /private/\n".utf8))
        web.page(host, "/", html: """
            <!doctype html><html><head><title>Loading…</title><script src="/static/app.js" defer></script></head>
            <body><div id="root"></div><a href="/about">About</a><a href="/spin">Spin</a></body></html>
            """)
        web.file(host, "/static/app.js", contentType: "text/javascript",
                 bytes: Array("fetch('/private/telemetry.json').catch(() => {});\n".utf8) + ClientRenderedApp.script(data: "/api/recipe.json", link: "/recipes/plum"))
        web.file(host, "/api/recipe.json", contentType: "application/json", bytes: Array(
            #"{"id": 42, "name": "Quince frangipane tart", "text": "Poached quince fanned over almond cream in a sweet pastry case."}"#.utf8))
        web.page(host, "/about", html: """
            <!doctype html><html><head><title>About the bakery</title><script>window.analytics = [];</script></head>
            <body><main><h1>About the bakery</h1><p>We have baked tarts, breads and pastries in the same oven since 1962, with flour
            milled two villages away and butter from the farm across the river. Every morning the first trays go out at six.</p></main></body></html>
            """)
        web.page(host, "/recipes/plum", html: "<!doctype html><html><head><title>Plum tart</title></head><body><main><p>Plums, sugar, pastry.</p></main></body></html>")
        web.page(host, "/spin", html: "<!doctype html><html><head><title>Spin</title></head><body><div id=app></div><script>for(;;){}</script></body></html>")
        return (web, try CrawlRunner(web: web, hosts: [host]))
    }

    @Test func aShellIsRenderedIndexedAndSearchable() throws {
        let (web, crawl) = try Self.site()
        defer { web.stop(); crawl.remove() }
        let (result, report) = try crawl.crawl([web.origin(Self.host) + "/"], ["--render-timeout", "3"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(report)
        #expect(json["rendered"] == 1, "the shell only: /about is written on the server")
        #expect(json["renderFailures"]?["render-timeout"] == 1, "the looping page is cut off")
        #expect(json["renderRefused"]?["robots"] == 1, "/private/ is disallowed for the script too")
        #expect(!web.requests.contains { $0.contains("/private/") })
        #expect(web.requests.contains("\(Self.host)/recipes/plum"), "a link the script wrote is followed")
        let hits = try crawl.search("quince frangipane")
        let shell = try #require(hits.first)
        #expect(shell["title"] == "Quince frangipane tart")
        #expect(shell["apps"]?.arrayValue?.contains { $0["deepLink"] == "tarts://recipe/42" } == true, "the banner the script added")
        #expect(shell["rendered"] == true, "the item says it was read as a browser rendered it")
        let about = try #require(try crawl.search("bakery oven").first)
        #expect(about["title"] == "About the bakery")
        #expect(about["rendered"] == nil)

        // The WARC keeps the response as sent and the rendered document as a conversion
        // record that refers to it, as warcio reads them.
        let folder = URL(fileURLWithPath: crawl.data).appendingPathComponent("warc")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".warc.gz") })
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", """
            import sys
            from warcio.archiveiterator import ArchiveIterator
            responses, conversions = {}, []
            for record in ArchiveIterator(open(sys.argv[1], 'rb')):
                body = record.content_stream().read()
                if record.rec_type == 'response':
                    responses[record.rec_headers.get_header('WARC-Record-ID')] = record.rec_headers.get_header('WARC-Target-URI')
                elif record.rec_type == 'conversion':
                    conversions.append((record.rec_headers.get_header('WARC-Refers-To'), b'Quince frangipane tart' in body))
            for refers, found in conversions:
                print(responses.get(refers), found)
            """, folder.appendingPathComponent(file).path]
        let output = Pipe()
        check.standardOutput = output
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "warcio must be installed and read the file")
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(lines == ["\(web.origin(Self.host))/ True"], "one conversion record, of the shell, referring to its response")
    }

    @Test func neverLeavesTheShellAsItCame() throws {
        let (web, crawl) = try Self.site()
        defer { web.stop(); crawl.remove() }
        let (result, report) = try crawl.crawl([web.origin(Self.host) + "/"], ["--render", "never"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report?["rendered"] == 0)
        #expect(try crawl.search("quince frangipane").isEmpty)
        #expect(!web.requests.contains { $0.hasSuffix("/app.js") })
    }

    /// `validate` and `extract --render` say what the browser adds to the HTML.
    @Test func validateAndExtractSayWhatScriptsAdd() throws {
        let (web, crawl) = try Self.site()
        defer { web.stop(); crawl.remove() }
        let url = web.origin(Self.host) + "/"
        // A render waits for the page, not for a clock: the longest timeout, so that a busy
        // machine's slow browser start is not taken for a page that never settles.
        let access = ["--resolve", web.resolveEntry(Self.host), "--allow-private", "--render-timeout", "120"]
        let validated = try CommandRunner.run(["validate", url, "--json"] + access, timeout: 300)
        let report = try JSONParser.parse(validated.stdout)
        let notes = report["render"]?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(report["render"]?["rendered"] == true, "\(validated.stderr)")
        #expect(notes.contains { $0.contains("Smart App Banner appears only after scripts run") }, "\(notes)")
        #expect(notes.contains { $0.contains("JSON-LD is injected by a script") }, "\(notes)")
        #expect(report["markup"]?["page"]?["smartAppBanner"]?["appArgument"] == "tarts://recipe/42", "the rendered page is validated")
        let never = try JSONParser.parse(try CommandRunner.run(["validate", url, "--json", "--render", "never"] + access).stdout)
        #expect(never["render"] == .null && never["markup"]?["page"]?["smartAppBanner"] == .null)

        let extracted = try CommandRunner.run(["extract", url, "--render"] + access)
        #expect(extracted.status == 0, "\(extracted.stderr)")
        #expect(extracted.stderr.contains("the Smart App Banner appears only after scripts run"))
        #expect(extracted.stdout.contains("Quince frangipane tart"))
    }
}
