import Foundation
import HTTPServer
import JSON
import SearchlightTestSupport
import Testing

/// The operator's view of a crawl: failures that say how to fix them and exit 1, the URLs
/// behind each count, what is due next, forced refetches, and a refused seed that a rerun
/// with `--allow-private` fetches.
@Suite struct OperatorTests {
    func site() throws -> (FixtureWeb, CrawlRunner, String) {
        let web = try FixtureWeb(tls: true)
        let host = "ops.web.test"
        web.page(host, "/", html: page("Home", links: ["/about", "/missing"]))
        web.page(host, "/about", html: page("About us", body: "We make trail maps."))
        return (web, try CrawlRunner(web: web, hosts: [host]), web.origin(host))
    }

    /// A crawl with nothing to start from — no seed, no seeds file, no frontier — is a mistake
    /// (issue 56): it says so, exits 1, and makes no data folder where it was run; the same run
    /// in a folder that crawled before goes on from its frontier.
    @Test func aCrawlWithNothingToStartFromFailsAndMakesNoFolder() throws {
        let folder = try TemporaryDirectory("empty-crawl")
        defer { folder.remove() }
        let result = try CommandRunner.run(["crawl", "--delay", "0"], in: folder.url)
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stderr.contains("nothing to crawl") && result.stderr.contains("--seeds FILE"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("crawl-data").path), "no folder made")
        let elsewhere = folder.url.appendingPathComponent("data").path
        #expect(try CommandRunner.run(["crawl", "--data", elsewhere], in: folder.url).status == 1)
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        // The seeds file as shipped: comments only.
        let seeds = folder.url.appendingPathComponent("seeds")
        try FileManager.default.createDirectory(at: seeds, withIntermediateDirectories: true)
        try "# add your sites, one URL a line\n".write(to: seeds.appendingPathComponent("default.txt"), atomically: true, encoding: .utf8)
        let shipped = try CommandRunner.run(["crawl"], in: folder.url)
        #expect(shipped.status == 1 && shipped.stderr.contains("seeds/default.txt lists no URL"), "\(shipped.stderr)")
    }

    /// A run whose every fetch got no answer reached nothing (issue 56): with robots.txt
    /// known from the first run and the site gone since, the refetched pages fail to connect;
    /// none is counted as fetched, the report says what to check, and the run exits 1 (it
    /// counted them fetched and exited 0).
    @Test func aRunThatGotNoAnswerExits1AndSaysWhy() throws {
        let (web, crawl, origin) = try site()
        defer { crawl.remove() }
        let (first, _) = try crawl.crawl([origin + "/"])
        #expect(first.status == 0, "\(first.stderr)")
        web.stop()
        let (second, report) = try crawl.crawl([origin + "/"], ["--refetch-all"])
        #expect(second.status == 1, "\(second.stdout)")
        #expect(report?["fetched"] == 0, "\(second.stdout)")
        #expect((report?["skipped"]?["connect"]?.intValue ?? 0) + (report?["skipped"]?["connection"]?.intValue ?? 0) > 0, "\(second.stdout)")
    }

    /// Resumed without the first run's --resolve, every page fails to resolve and the run
    /// exits 1; the next run that gives --resolve again fetches them at once, rather than
    /// after their retry delay (issue 56).
    @Test func pagesThatDidNotResolveAreDueAgainWithResolve() throws {
        let (web, crawl, origin) = try site()
        defer { web.stop(); crawl.remove() }
        let (first, _) = try crawl.crawl([origin + "/"])
        #expect(first.status == 0, "\(first.stderr)")
        let unresolved = try CommandRunner.run(["crawl", origin + "/", "--data", crawl.data, "--cacert", TestCertificates.caFile, "--allow-private",
                                                "--delay", "0", "--refetch-all", "--json"])
        #expect(unresolved.status == 1, "\(unresolved.stdout)")
        let lost = try JSONParser.parse(unresolved.stdout)
        #expect(lost["fetched"] == 0 && (lost["skipped"]?["dns"]?.intValue ?? 0) > 0, "\(unresolved.stdout)")
        let (fixed, report) = try crawl.crawl([origin + "/"])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(report?["fetched"]?.intValue ?? 0 >= 2, "the pages that did not resolve are due again: \(fixed.stdout)")
        #expect(report?["refetched"]?.intValue ?? 0 >= 1)
    }

    @Test func aRefusedSeedSaysWhatToDoAndARerunWithAllowPrivateFetchesIt() throws {
        let (web, crawl, origin) = try site()
        defer { web.stop(); crawl.remove() }
        let refused = try CommandRunner.run(["crawl", origin + "/", "--data", crawl.data, "--cacert", TestCertificates.caFile,
                                             "--resolve", web.resolveEntry("ops.web.test"), "--delay", "0"])
        #expect(refused.status == 1, "nothing was reached: \(refused.stdout)")
        #expect(refused.stdout.contains("refused-address") && refused.stdout.contains("--allow-private"), "\(refused.stdout)")
        #expect(web.requests.isEmpty)
        let listed = try CommandRunner.run(["status", "--data", crawl.data, "--urls", "refused-address", "--json"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try JSONParser.parse(listed.stdout)["urls"]?.arrayValue ?? []
        let urls = rows.compactMap { $0["url"]?.stringValue }
        #expect(urls.contains(origin + "/"), "\(listed.stdout)")

        let (rerun, report) = try crawl.crawl([origin + "/"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(report?["fetched"]?.intValue == 3, "the seed and its two links: \(rerun.stdout)")
        #expect(report?["refetched"]?.intValue ?? 0 >= 1)
    }

    @Test func theURLsBehindACountTheNextDueTimeAndForcedRefetches() throws {
        let (web, crawl, origin) = try site()
        defer { web.stop(); crawl.remove() }
        let (first, _) = try crawl.crawl([origin + "/"])
        #expect(first.status == 0, "\(first.stderr)")
        let missing = try CommandRunner.run(["status", "--data", crawl.data, "--urls", "http-404"])
        #expect(missing.stdout.hasPrefix("1 URL skipped as http-404"), "\(missing.stdout)")
        #expect(missing.stdout.contains(origin + "/missing") && missing.stdout.contains("status 404"), "\(missing.stdout)")
        #expect(try CommandRunner.run(["status", "--data", crawl.data, "--urls", "no such"]).status == 64)
        // A reason no run report names is a mistake, with the folder's own reasons as the hint
        // (it counted "0 URL(s) skipped as bogus"); one that could be named but is not here is 0.
        let bogus = try CommandRunner.run(["status", "--data", crawl.data, "--urls", "http-4040"])
        #expect(bogus.status == 64)
        #expect(bogus.stderr.contains("http-404 (1)") && bogus.stderr.contains("did you mean http-404?"), "\(bogus.stderr)")
        let none = try CommandRunner.run(["status", "--data", crawl.data, "--urls", "timeout"])
        #expect(none.status == 0 && none.stdout.hasPrefix("0 URLs skipped as timeout"), "\(none.stdout)")

        // Nothing is due: the summary says when something is, and how to fetch now.
        let idle = try CommandRunner.run(["crawl", origin + "/", "--data", crawl.data, "--cacert", TestCertificates.caFile,
                                          "--resolve", web.resolveEntry("ops.web.test"), "--allow-private", "--delay", "0"])
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(idle.stdout.contains("fetched 0 pages"))
        #expect(idle.stdout.contains("the next URL falls due at") && idle.stdout.contains("--refetch-all"), "\(idle.stdout)")

        let before = web.requests.filter { $0 == "ops.web.test/about" }.count
        let (one, oneReport) = try crawl.crawl([], ["--refetch", origin + "/about"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(oneReport?["fetched"]?.intValue == 1)
        #expect(web.requests.filter { $0 == "ops.web.test/about" }.count == before + 1)
        let (all, allReport) = try crawl.crawl([], ["--refetch-all"])
        #expect(all.status == 0)
        #expect(allReport?["fetched"]?.intValue == 3, "\(all.stdout)")
        #expect(allReport?["refetched"]?.intValue == 3)
    }

    @Test func anUnreachableHostNamesTheErrorAndExits1() throws {
        let crawl = try CrawlRunner(web: try FixtureWeb(), hosts: [])
        defer { crawl.web.stop(); crawl.remove() }
        // A port nothing listens on: the fixture server's own, once stopped.
        let closed = try FixtureWeb()
        let port = closed.port
        closed.stop()
        let result = try CommandRunner.run(["crawl", "http://down.web.test:\(port)/", "--data", crawl.data, "--allow-private",
                                            "--resolve", "down.web.test:\(port):127.0.0.1", "--delay", "0"])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.stdout.contains("robots-unreachable"))
        #expect(result.stdout.contains("robots.txt: ") && result.stdout.lowercased().contains("connect"), "curl's own words: \(result.stdout)")
    }

    @Test func theProgressDisplayShowsEachHostsStageOnStandardError() throws {
        let (web, crawl, origin) = try site()
        defer { web.stop(); crawl.remove() }
        let (result, report) = try crawl.crawl([origin + "/"], ["--progress", "hosts"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report?["fetched"]?.intValue == 3, "the report on standard output stays JSON: \(result.stdout)")
        // The first snapshot comes as robots.txt is out: elapsed time, the stage, the host.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("0:00 · hosts: 1 robots · 0 fetched") == true, "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("  \(origin)  robots · 0 pages") }, "\(result.stderr)")
        #expect(try CommandRunner.run(["crawl", origin + "/", "--data", crawl.data, "--progress", "bars"]).status == 64)
    }
}
