import Foundation
import JSON
import SearchlightTestSupport
import Testing

/// `validate --data DIR` reads the data folder's frontier, as the crawl would, to say that a
/// page's body was already indexed at another URL.
@Suite struct ValidateWithDataTests {
    @Test func aBodyAlreadyCrawledElsewhereIsNamedAsTheDuplicate() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let site = "copies.web.test"
        let html = page("Lemon tart", body: "A sharp lemon tart in a crisp shell, baked blind and filled the day before.")
        web.page(site, "/tart", html: html)
        web.page(site, "/copy-of-tart", html: html)
        let crawl = try CrawlRunner(web: web, hosts: [site])
        defer { crawl.remove() }
        let (run, _) = try crawl.crawl([web.origin(site) + "/tart"])
        #expect(run.status == 0, "\(run.stderr)")

        func validate(_ extra: [String]) throws -> JSONValue {
            let result = try CommandRunner.run(["validate", web.origin(site) + "/copy-of-tart", "--json", "--cacert", TestCertificates.caFile,
                                                "--allow-private", "--resolve", web.resolveEntry(site)] + extra)
            return try JSONParser.parse(result.stdout)
        }
        let against = try validate(["--data", crawl.data])
        #expect(against["indexing"]?["duplicateOf"]?.stringValue == web.origin(site) + "/tart", "\(against)")
        #expect(against["indexable"] == false)
        let alone = try validate([])
        #expect(alone["indexing"]?["duplicateOf"]?.stringValue == nil, "no folder, nothing to compare with")
        #expect(alone["indexable"] == true)
    }
}
