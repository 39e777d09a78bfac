import DemoWeb
import Foundation
import HTTPServer
import HTTPTypes
import JSON
import SearchlightTestSupport
import Testing

/// `searchlight validate` against the demo sites and against fixture sites that each get
/// one thing wrong, checking the verdict, the reasons and the evidence a site owner sees.
@Suite struct ValidateCommandTests {
    /// Runs `validate --json` against the fixture web; the exit status and the report.
    func validate(_ url: String, on web: FixtureWeb, hosts: [String], _ extra: [String] = []) throws -> (Int32, JSONValue) {
        var arguments = ["validate", url, "--json", "--cacert", TestCertificates.caFile, "--allow-private"]
        for host in hosts { arguments += ["--resolve", web.resolveEntry(host)] }
        let result = try CommandRunner.run(arguments + extra)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        return (result.status, try JSONParser.parse(result.stdout))
    }

    func appPage(_ title: String, head: String = "", body: String = "") -> String {
        "<!doctype html><html><head><meta charset=utf-8><title>\(title)</title>\(head)</head><body><h1>\(title)</h1><p>\(body)</p></body></html>"
    }

    static let banner = #"<meta name="apple-itunes-app" content="app-id=123456789, app-argument=recipes://tart">"#
    static let appLinks = #"<meta property="al:ios:url" content="recipes://tart"><meta property="al:ios:app_store_id" content="123456789">"#

    @Test func theDemoPagesPassWithTheirEvidence() throws {
        let server = try DemoWeb.serve()
        defer { server.stop(gracePeriod: 0) }
        let resolve = DemoWeb.hosts.flatMap { ["--resolve", "\($0):\(server.port):127.0.0.1"] }
        let result = try CommandRunner.run(["validate", "https://friends.demo.test:\(server.port)/people/becky", "--json",
                                            "--cacert", DemoWeb.caFile, "--allow-private"] + resolve)
        let report = try JSONParser.parse(result.stdout)
        #expect(result.status == 0, "\(result.stdout.prefix(3000))")
        #expect(report["indexable"] == true)
        #expect(report["robots"]?["allowed"] == true)
        #expect(report["association"]?["apple"]?["claimed"] == true)
        #expect(report["association"]?["apple"]?["match"]?["written"]?.stringValue?.contains("/people/") == true)
        #expect(report["actions"]?["ios"]?["withApp"]?["type"] == "open-app")
        #expect(report["actions"]?["ios"]?["withoutApp"]?["type"] == "open-web")
        #expect(report["item"]?["title"]?.stringValue?.contains("Becky") == true)

        let human = try CommandRunner.run(["validate", "https://live.demo.test:\(server.port)/", "--platform", "android",
                                           "--cacert", DemoWeb.caFile, "--allow-private"] + resolve)
        #expect(human.stdout.hasPrefix("PASS") || human.stdout.hasPrefix("FAIL"))
        #expect(human.stdout.contains("robots.txt"))
        #expect(human.stdout.contains("Tap"))
    }

    /// Apple matches the URL as tapped: `{"#": "nondeeplinking", "exclude": true}` keeps
    /// `/search/#nondeeplinking` in the browser while `/search/` opens the app (swcutil's verdicts).
    @Test func theAssociationFileIsMatchedAgainstTheFragmentToo() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let host = "frag.web.test"
        web.file(host, "/.well-known/apple-app-site-association", contentType: "application/json", bytes: Array("""
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"],
              "components": [{"#": "nondeeplinking", "exclude": true}, {"/": "/search/"}]}]}}
            """.utf8))
        web.page(host, "/search/", html: appPage("Search", head: Self.banner))
        let (_, excluded) = try validate(web.origin(host) + "/search/#nondeeplinking", on: web, hosts: [host])
        #expect(excluded["association"]?["apple"]?["claimed"] == false, "\(excluded["association"] ?? .null)")
        #expect(excluded["association"]?["apple"]?["match"]?["excludes"] == true)
        let (_, claimed) = try validate(web.origin(host) + "/search/", on: web, hosts: [host])
        #expect(claimed["association"]?["apple"]?["claimed"] == true, "\(claimed["association"] ?? .null)")
    }

    /// A sitemap that robots.txt names may list the host's pages outside its own folder:
    /// read (the page counts as listed), with a warning that strict crawlers drop them; an
    /// index's children are followed and a cut file is flagged.
    @Test func sitemapsShowWhetherThePageIsListedAndWarnAboutTheFolderRule() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let host = "maps.web.test"
        let origin = web.origin(host)
        web.file(host, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nAllow: /\nSitemap: \(origin)/feeds/index.xml\n".utf8))
        web.file(host, "/feeds/index.xml", contentType: "application/xml", bytes: Array("""
            <sitemapindex><sitemap><loc>\(origin)/feeds/recipes.xml</loc></sitemap><sitemap><loc>\(origin)/feeds/cut.xml</loc></sitemap></sitemapindex>
            """.utf8))
        web.file(host, "/feeds/recipes.xml", contentType: "application/xml", bytes: Array("""
            <urlset><url><loc>\(origin)/recipes/tart</loc></url><url><loc>\(origin)/feeds/about</loc></url></urlset>
            """.utf8))
        web.file(host, "/feeds/cut.xml", contentType: "application/xml", bytes: Array("<urlset><url><loc>\(origin)/recipes/pie</loc></url><url><lo".utf8))
        web.page(host, "/recipes/tart", html: appPage("Tart", head: Self.banner))
        web.page(host, "/recipes/flan", html: appPage("Flan", head: Self.banner))
        let (_, listed) = try validate(origin + "/recipes/tart", on: web, hosts: [host])
        let sitemaps = try #require(listed["sitemaps"])
        #expect(sitemaps["listed"] == true)
        let files = sitemaps["files"]?.arrayValue ?? []
        #expect(files.compactMap { $0["url"]?.stringValue } == ["/feeds/index.xml", "/feeds/recipes.xml", "/feeds/cut.xml"].map { origin + $0 })
        #expect(files.first?["namedInRobots"] == true && files.first?["kind"] == "index")
        #expect(files[1]["outsideFolder"]?.intValue == 1 && files[1]["listsPage"] == true)
        #expect(files[2]["truncated"] == true)
        let notes = sitemaps["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.contains("outside its folder /feeds/") && $0.contains("sitemaps.org folder rule") }, "\(notes)")
        #expect(notes.contains { $0.contains("cut short") })

        let (_, unlisted) = try validate(origin + "/recipes/flan", on: web, hosts: [host])
        #expect(unlisted["sitemaps"]?["listed"] == false)
        #expect(unlisted["sitemaps"]?["notes"]?.arrayValue?.contains { $0.stringValue?.hasPrefix("no sitemap of the host lists") == true } == true)
        let human = try CommandRunner.run(["validate", origin + "/recipes/flan", "--cacert", TestCertificates.caFile, "--allow-private",
                                           "--resolve", web.resolveEntry(host)])
        #expect(human.stdout.contains("Sitemaps") && human.stdout.contains("not listed"), "\(human.stdout)")
    }

    @Test func robotsVerdictsNameTheGroupRuleAndLine() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        web.file("a.web.test", "/robots.txt", contentType: "text/plain", bytes: Array("# rules\nUser-agent: *\nDisallow: /private\n".utf8))
        web.page("a.web.test", "/private/page", html: appPage("Private", head: Self.banner))
        // RFC 9309: a crawl-delay between two user-agent lines does not end the group.
        web.file("b.web.test", "/robots.txt", contentType: "text/plain",
                 bytes: Array("user-agent: searchlightbot\ncrawl-delay: 1\nuser-agent: *\ndisallow: /private\n".utf8))
        web.page("b.web.test", "/private", html: appPage("Private", head: Self.banner))
        web.file("c.web.test", "/robots.txt", contentType: "text/plain", bytes: [], status: 503)
        web.page("c.web.test", "/", html: appPage("Home", head: Self.banner))

        let (status, a) = try validate(web.origin("a.web.test") + "/private/page", on: web, hosts: ["a.web.test"])
        #expect(status == 1)
        #expect(a["reasons"]?.arrayValue?.first?["code"] == "robots")
        #expect(a["robots"]?["allowed"] == false)
        #expect(a["robots"]?["group"] == "*")
        #expect(a["robots"]?["rule"] == "Disallow: /private")
        #expect(a["robots"]?["line"] == 3)
        #expect(web.requests.allSatisfy { !$0.contains("/private") }, "a disallowed page is not fetched")
        let human = try CommandRunner.run(["validate", web.origin("a.web.test") + "/private/page", "--cacert", TestCertificates.caFile,
                                           "--allow-private", "--resolve", web.resolveEntry("a.web.test")])
        #expect(human.stdout.contains("not fetched: robots.txt disallows it"), "no bare status 0: \(human.stdout)")
        #expect(human.stdout.contains("App association\n  not checked: the page was not fetched"), "no empty heading: \(human.stdout)")

        let (_, b) = try validate(web.origin("b.web.test") + "/private", on: web, hosts: ["b.web.test"])
        #expect(b["robots"]?["allowed"] == false)
        #expect(b["robots"]?["group"] == "searchlightbot")
        #expect(b["robots"]?["line"] == 4)

        let (_, c) = try validate(web.origin("c.web.test") + "/", on: web, hosts: ["c.web.test"])
        #expect(c["reasons"]?.arrayValue?.first?["code"] == "robots-unreachable")
        #expect(c["robots"]?["status"] == 503)
    }

    /// RFC 9309's cases over HTTP, each verdict with the rule and line that made it.
    struct RobotsCase: Sendable, CustomTestStringConvertible {
        var robots: String
        var path: String
        var allowed: Bool
        var rule: String?
        var line: Int?
        var testDescription: String { "\(path) under \(robots.debugDescription)" }
    }

    @Test(arguments: [
        RobotsCase(robots: "User-agent: *\nDisallow: /shop\nAllow: /shop/items\n", path: "/shop/items/1", allowed: true, rule: "Allow: /shop/items", line: 3),
        RobotsCase(robots: "User-agent: *\nDisallow: /page\nAllow: /page\n", path: "/page", allowed: true, rule: "Allow: /page", line: 3),
        RobotsCase(robots: "User-agent: *\nDisallow: /*.pdf$\n", path: "/a/b.pdf", allowed: false, rule: "Disallow: /*.pdf$", line: 2),
        RobotsCase(robots: "User-agent: *\nDisallow: /*.pdf$\n", path: "/a/b.pdf?x=1", allowed: true, rule: nil, line: nil),
        RobotsCase(robots: "User-agent: *\nDisallow: /%7Ejoe\n", path: "/~joe/x", allowed: false, rule: "Disallow: /~joe", line: 2),
        RobotsCase(robots: "User-agent: *\nDisallow: /a%2Ab\n", path: "/a%2Ab", allowed: false, rule: "Disallow: /a%2Ab", line: 2),
        RobotsCase(robots: "User-agent: SEARCHLIGHTBOT/2.0\nDisallow: /x\n", path: "/x", allowed: false, rule: "Disallow: /x", line: 2),
        RobotsCase(robots: "User-agent: a\nUser-agent: searchlightbot\nUser-agent: b\nDisallow: /shared\n", path: "/shared", allowed: false,
                   rule: "Disallow: /shared", line: 4),
        RobotsCase(robots: "\u{FEFF}User-agent: *\nDisallow: /bom\n", path: "/bom", allowed: false, rule: "Disallow: /bom", line: 2),
        RobotsCase(robots: "User-agent: *\nDisallow: /\n" + String(repeating: "# filler line\n", count: 40_000) + "Allow: /late\n", path: "/late",
                   allowed: false, rule: "Disallow: /", line: 2),
    ])
    func robotsCasesOfTheRFC(_ c: RobotsCase) throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        web.file("rfc.web.test", "/robots.txt", contentType: "text/plain", bytes: Array(c.robots.utf8))
        web.page("rfc.web.test", c.path, html: appPage("Page", head: Self.banner))
        let (_, report) = try validate(web.origin("rfc.web.test") + c.path, on: web, hosts: ["rfc.web.test"])
        #expect(report["robots"]?["allowed"] == .bool(c.allowed))
        #expect(report["robots"]?["rule"] == (c.rule.map(JSONValue.string) ?? .null))
        #expect(report["robots"]?["line"] == (c.line.map { JSONValue($0) } ?? .null))
    }

    @Test func redirectsNoindexCanonicalsAndHTTPErrorsAreExplained() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "shop.web.test"
        web.route(site, "/old") { _ in .redirect(to: "/new", status: 301) }
        web.route(site, "/new") { _ in .redirect(to: "/newest", status: 308) }
        web.page(site, "/newest", html: appPage("Newest", head: Self.banner))
        web.route(site, "/away") { _ in .redirect(to: "https://elsewhere.web.test/", status: 302) }
        web.page(site, "/hidden", html: appPage("Hidden", head: Self.banner), headers: [HTTPField("X-Robots-Tag", "searchlightbot: noindex")])
        web.page(site, "/print", html: appPage("Print", head: Self.banner + #"<link rel="canonical" href="/article">"#))
        web.page(site, "/article", html: appPage("Article", head: Self.banner))
        web.route(site, "/gone") { _ in .text("gone", status: 410) }

        let (status, redirected) = try validate(web.origin(site) + "/old", on: web, hosts: [site])
        #expect(status == 0, "\(redirected["reasons"] ?? .null)")
        #expect(redirected["fetch"]?["hops"]?.arrayValue?.map { $0["status"]?.intValue ?? 0 } == [301, 308, 200])
        #expect(redirected["finalURL"]?.stringValue?.hasSuffix("/newest") == true)

        let (_, away) = try validate(web.origin(site) + "/away", on: web, hosts: [site])
        #expect(away["reasons"]?.arrayValue?.first?["code"] == "redirect-out-of-scope")

        let (_, hidden) = try validate(web.origin(site) + "/hidden", on: web, hosts: [site])
        #expect(hidden["indexable"] == false)
        #expect(hidden["reasons"]?.arrayValue?.first?["code"] == "noindex")
        #expect(hidden["indexing"]?["noindex"]?.arrayValue?.first == "X-Robots-Tag: searchlightbot: noindex")

        let (_, copy) = try validate(web.origin(site) + "/print", on: web, hosts: [site])
        #expect(copy["reasons"]?.arrayValue?.first?["code"] == "canonical")
        #expect(copy["indexing"]?["canonical"]?["crawlable"] == true)

        let (_, gone) = try validate(web.origin(site) + "/gone", on: web, hosts: [site])
        #expect(gone["reasons"]?.arrayValue?.first?["code"] == "http-410")
    }

    @Test func brokenMarkupAndAssociationFilesAreReported() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "recipes.web.test"
        // A misspelt al:ios:url, and JSON-LD with a syntax error on its third line.
        web.page(site, "/tart", html: """
            <!doctype html><html><head><meta charset=utf-8><title>Lemon tart</title>
            <meta property="al:ios:ur1" content="recipes://tart">
            <meta property="al:ios:app_store_id" content="123456789">
            <script type="application/ld+json">
            {"@type": "Recipe",
             "name": "Lemon tart",
             "author": {"name": "Ann" "x": 1}}
            </script>
            </head><body><p>Tart.</p></body></html>
            """)
        // The association file is served as text/html with a trailing comma.
        web.file(site, "/.well-known/apple-app-site-association", contentType: "text/html",
                 bytes: Array(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.recipes"], "components": [{"/": "/tart"},]}]}}"#.utf8))
        web.route(site, "/.well-known/assetlinks.json") { _ in .redirect(to: "/assetlinks.json", status: 302) }

        let (status, report) = try validate(web.origin(site) + "/tart", on: web, hosts: [site])
        #expect(status == 1)
        let findings = report["markup"]?["findings"]?.arrayValue ?? []
        #expect(findings.contains { $0["family"] == "app-links" && $0["message"]?.stringValue?.contains("did you mean 'al:ios:url'") == true })
        let jsonLD = findings.first { $0["family"] == "schema.org" && $0["level"] == "warning" }
        #expect(jsonLD?["line"] == 7, "\(findings)")
        let apple = report["association"]?["apple"]
        let problems = apple?["files"]?.arrayValue?.first?["problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let notes = apple?["files"]?.arrayValue?.first?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.contains { $0.contains("not the documented application/json") }, "\(notes)")
        #expect(problems.contains { $0.contains("not valid JSON") })
        #expect(apple?["valid"] == false, "Apple's reader is strict JSON, and so is ours")
        #expect(apple?["claimed"] == false)
        let android = report["association"]?["android"]?["file"]?["problems"]?.arrayValue?.first?.stringValue
        #expect(android?.contains("without redirects") == true)
        #expect(report["actions"]?["ios"]?["withApp"]?["type"] == "open-web", "no deep link and no universal link")
        #expect(report["reasons"]?.arrayValue?.first?["code"] == "no-app-action")
    }

    /// A Content-Type of only `;` is a wrong type, noted, not a crash of `validate`.
    @Test func anAssociationFileTypedOnlyASemicolonIsNoted() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "semicolon.web.test"
        web.page(site, "/tart", html: appPage("Lemon tart", head: Self.banner))
        for type in [";", " ; ", ";;"] {
            web.file(site, "/.well-known/apple-app-site-association", contentType: type,
                     bytes: Array(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.recipes"], "components": [{"/": "/tart"}]}]}}"#.utf8))
            let (_, report) = try validate(web.origin(site) + "/tart", on: web, hosts: [site])
            let notes = report["association"]?["apple"]?["files"]?.arrayValue?.first?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(notes.contains { $0.contains("not the documented application/json") }, "\(type): \(notes)")
        }
    }

    /// One verdict, the one the crawler acts on (issue 56): a file served with another
    /// Content-Type is read by devices, Apple's CDN and the crawler, so it is a
    /// recommendation and the page's universal link holds; a file the crawler cannot use
    /// needs action, and the line under FAIL says which area and why.
    @Test func eachAreaGetsTheVerdictTheCrawlerActsOn() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "banner.web.test"
        let file = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.recipes"], "components": [{"/": "/tart"}]}]}}"#
        web.page(site, "/tart", html: appPage("Lemon tart", head: Self.banner))
        web.file(site, "/.well-known/apple-app-site-association", contentType: "application/octet-stream", bytes: Array(file.utf8))
        let (status, report) = try validate(web.origin(site) + "/tart", on: web, hosts: [site])
        let areas = report["areas"]?.arrayValue ?? []
        func level(_ area: String) -> String? { areas.first { $0["area"]?.stringValue == area }?["level"]?.stringValue }
        #expect(status == 0 && report["passed"] == true, "\(areas)")
        #expect(level("universal-links") == "recommended", "\(areas)")
        #expect(report["item"]?["apps"]?.arrayValue?.first?["universalLink"] == true, "the crawler uses the file: so does the verdict")
        #expect(level("android-app-links") == "not-used", "no Android app on the page: a 404 is fine")
        let human = try CommandRunner.run(["validate", web.origin(site) + "/tart", "--cacert", TestCertificates.caFile, "--allow-private",
                                           "--resolve", web.resolveEntry(site)])
        #expect(human.stdout.hasPrefix("PASS") && human.stdout.contains("! Recommended      universal-links"), "\(human.stdout)")
        #expect(!human.stdout.contains("Action required"), "\(human.stdout)")

        // A file Apple cannot read: the area needs action, and what failed is said under FAIL
        // (the line under it read "indexed, and a tap opens the app" before).
        web.file(site, "/.well-known/apple-app-site-association", contentType: "application/json", bytes: Array(file.dropLast().utf8))
        web.file(site, "/apple-app-site-association", contentType: "application/json", bytes: Array(file.utf8))
        let broken = try CommandRunner.run(["validate", web.origin(site) + "/tart", "--cacert", TestCertificates.caFile, "--allow-private",
                                            "--resolve", web.resolveEntry(site)])
        let lines = broken.stdout.split(separator: "\n").map(String.init)
        #expect(broken.status == 1 && lines.first?.hasPrefix("FAIL") == true, "\(broken.stdout)")
        #expect(lines.dropFirst().first == "  indexed, but:", "\(broken.stdout)")
        #expect(lines.dropFirst(2).first?.hasPrefix("  ✗ universal-links: ") == true && lines[2].contains("not valid JSON"), "\(broken.stdout)")
        #expect(!broken.stdout.contains("a tap opens the app on ios"), "\(broken.stdout)")

        // Served right, the same page passes with every area fine.
        web.file(site, "/.well-known/apple-app-site-association", contentType: "application/json", bytes: Array(file.utf8))
        let (fixed, clean) = try validate(web.origin(site) + "/tart", on: web, hosts: [site])
        #expect(fixed == 0)
        #expect(clean["areas"]?.arrayValue?.first { $0["area"] == "universal-links" }?["level"] == "fine")
    }

    /// Each value of an app is tagged with the markup it came from: an App Store id from
    /// App Links is not the banner's, whose app-argument gave the deep link (issue 56); an
    /// area's notes do not repeat its name; the charset's source is said in words.
    @Test func evidenceNamesTheMarkupEachValueCameFrom() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "sources.web.test"
        let head = #"<meta name="apple-itunes-app" content="app-argument=recipes://tart/banner">"#
            + #"<meta property="al:ios:app_store_id" content="123456789"><meta property="al:ios:url" content="recipes://tart/links">"#
        web.page(site, "/tart", html: appPage("Lemon tart", head: head, body: "A lemon tart with a crisp pastry."))
        web.file(site, "/plain", contentType: "text/html",
                 bytes: Array("<html><head><title>Plain</title></head><body><p>No app here, no charset either.</p></body></html>".utf8))
        let hosts = ["--cacert", TestCertificates.caFile, "--allow-private", "--resolve", web.resolveEntry(site)]
        let tart = try CommandRunner.run(["validate", web.origin(site) + "/tart"] + hosts)
        let app = tart.stdout.split(separator: "\n").first { $0.hasPrefix("  App (ios)") }.map(String.init) ?? ""
        #expect(app.hasSuffix("123456789 [app-links] → recipes://tart/banner [smart-app-banner]"), "\(tart.stdout)")
        let (_, report) = try validate(web.origin(site) + "/tart", on: web, hosts: [site])
        let sources = report["appSources"]?.arrayValue?.first
        #expect(sources?["idFrom"] == "app-links" && sources?["deepLinkFrom"] == "smart-app-banner", "\(sources ?? .null)")

        let plain = try CommandRunner.run(["validate", web.origin(site) + "/plain"] + hosts)
        #expect(plain.stdout.contains("app-markup: no app markup"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("app-markup: app-markup:"), "\(plain.stdout)")
        #expect(plain.stdout.contains("Charset           UTF-8 (not declared; the bytes read as UTF-8)"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("(from sniffed)"))
    }

    /// `validate URL --query Q` (issue 56): where the crawled page ranks for Q in the data
    /// folder's index and why — the words' fields and forms, the score's parts, the results
    /// above — and what keeps it out or down, checked against the page as served now: a word
    /// outside the main text, a page changed since the crawl, a page no crawl has found.
    @Test func findabilityExplainsARankAndWhatKeepsAPageDown() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "rank.web.test"
        let nav = "<nav><a href=\"/\">Home</a> <a href=\"/shop\">Shop copper cookware</a></nav>"
        func page(_ title: String, _ text: String) -> String {
            "<!doctype html><html><head><meta charset=utf-8><title>\(title)</title>" + Self.banner + "</head><body>\(nav)<main><h1>\(title)</h1>"
                + "<p>\(text)</p></main><footer>Links: <a href=\"/tart\">tart</a> <a href=\"/cake\">cake</a></footer></body></html>"
        }
        web.page(site, "/", html: page("Recipes", "Our lemon recipes, baked every morning in the bakery for the neighbourhood."))
        web.page(site, "/tart", html: page("Lemon tart", "A lemon tart with a crisp shortcrust and a sharp lemon curd, baked until just set."))
        web.page(site, "/cake", html: page("Lemon drizzle cake", "A lemon tart's cousin: a sponge soaked in lemon syrup, with a crackling lemon glaze."))
        let folder = try TemporaryDirectory("findability")
        defer { folder.remove() }
        let data = folder.url.appendingPathComponent("data").path
        let fetch = ["--cacert", TestCertificates.caFile, "--allow-private", "--resolve", web.resolveEntry(site)]
        let crawl = try CommandRunner.run(["crawl", web.origin(site) + "/", "--data", data, "--delay", "0"] + fetch)
        #expect(crawl.status == 0, "\(crawl.stderr)")

        let shown = try CommandRunner.run(["validate", web.origin(site) + "/cake", "--data", data, "--query", "lemon tart"] + fetch)
        let text = shown.stdout
        #expect(text.contains("Findability for “lemon tart” in \(data)"), "\(text)")
        #expect(text.contains("  Rank              2 of 3 results"), "\(text)")
        #expect(text.contains("lemon (written): title 1"), "\(text)")
        #expect(text.contains("  Above it") && text.contains("Lemon tart  \(web.origin(site))/tart"), "\(text)")
        #expect(text.contains("Score") && text.contains("= relevance"), "\(text)")

        // A word only in the navigation: on the page, outside its main text.
        let cookware = try CommandRunner.run(["validate", web.origin(site) + "/tart", "--data", data, "--query", "lemon cookware", "--json"] + fetch)
        let report = try JSONParser.parse(cookware.stdout)["findability"]
        #expect(report?["rank"] == 1, "\(cookware.stdout.suffix(2000))")
        #expect(report?["findings"]?.arrayValue?.contains { $0["code"] == "missing-words" } == true)
        let live = report?["live"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(live.contains { $0.contains("'cookware' is on the page but outside its main text") }, "\(live)")

        // The page changed since the crawl: the live page holds the word, the index does not.
        web.page(site, "/tart", html: page("Lemon tart", "A lemon tart with candied peel, a crisp shortcrust and a sharp lemon curd."))
        let changed = try CommandRunner.run(["validate", web.origin(site) + "/tart", "--data", data, "--query", "candied lemon"] + fetch)
        #expect(changed.stdout.contains("the page as served now holds 'candied', the indexed copy does not"), "\(changed.stdout)")

        // A page no crawl has found.
        web.page(site, "/hidden", html: page("Lemon posset", "A lemon posset nobody links to."))
        let hidden = try CommandRunner.run(["validate", web.origin(site) + "/hidden", "--data", data, "--query", "lemon posset"] + fetch)
        #expect(hidden.stdout.contains("not in the results: not in the index"), "\(hidden.stdout)")
        #expect(hidden.stdout.contains("no crawl of this folder has found the URL"), "\(hidden.stdout)")

        // No index: a clear error, not an empty report.
        let none = try CommandRunner.run(["validate", web.origin(site) + "/tart", "--data", folder.url.appendingPathComponent("none").path,
                                          "--query", "lemon"] + fetch)
        #expect(none.status == 1 && none.stderr.contains("has none: crawl first"), "\(none.stderr)")
        #expect(try CommandRunner.run(["validate", web.origin(site) + "/tart", "--query", " "] + fetch).status == 64)
    }

    @Test func aPageWithoutAnAppActionFailsWithTheReason() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        web.page("plain.web.test", "/", html: appPage("Plain page", body: "No app here."))
        let (status, report) = try validate(web.origin("plain.web.test") + "/", on: web, hosts: ["plain.web.test"])
        #expect(status == 1)
        #expect(report["indexable"] == true)
        #expect(report["reasons"]?.arrayValue?.first?["code"] == "no-app-action")
        #expect(report["actions"]?["ios"]?["withApp"]?["type"] == "open-web")
    }

    @Test func usageErrorsExit64() throws {
        #expect(try CommandRunner.run(["validate"]).status == 64)
        #expect(try CommandRunner.run(["validate", "not a url"]).status == 64)
        #expect(try CommandRunner.run(["validate", "https://x.test/", "--platform", "windows"]).status == 64)
    }

    /// A page's values reach a terminal: `validate` and `extract --explain` write its
    /// controls out (``TerminalText``) — no screen cleared, title set or line reordered.
    @Test func aHostilePagesControlsAreWrittenOutNotSentToTheTerminal() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let hostile = "Tart\u{1B}[2J\u{1B}]0;pwned\u{7}\u{9B}31m\u{202E}gpj.exe"
        let head = #"<meta name="apple-itunes-app" content="app-id=123456789, app-argument=\#(hostile)">"#
            + #"<meta property="og:title" content="\#(hostile)"><meta name="description" content="\#(hostile)">"#
        web.page("evil.web.test", "/page", html: "<html><head><title>\(hostile)</title>\(head)</head><body><p>\(String(repeating: hostile + " words ", count: 40))</p></body></html>")
        let url = web.origin("evil.web.test") + "/page"
        let human = try CommandRunner.run(["validate", url, "--cacert", TestCertificates.caFile, "--allow-private", "--resolve", web.resolveEntry("evil.web.test")])
        let page = try TemporaryDirectory("hostile-page")
        defer { page.remove() }
        let file = page.path + "/page.html"
        try Data(("<html><head><title>\(hostile)</title>\(head)</head><body><p>\(String(repeating: hostile + " words ", count: 40))</p></body></html>").utf8)
            .write(to: URL(fileURLWithPath: file))
        let explained = try CommandRunner.run(["extract", file, "--explain"])
        for (name, output) in [("validate", human.stdout), ("extract --explain", explained.stdout)] {
            #expect(output.contains("Tart"), "\(name) shows the page: \(output)")
            let controls = output.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }
            #expect(controls.isEmpty, "\(name) printed \(controls.map { String($0.value, radix: 16) })")
            #expect(output.contains("\\u001b"), "\(name) writes ESC out")
        }
    }
}
