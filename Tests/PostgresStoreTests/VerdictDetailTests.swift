import Foundation
import JSON
import SearchlightTestSupport
import Testing

/// A page whose item breaks the item contract is skipped as `invalid-item` with the rule it
/// broke, in the run report and with the URL in either store, for `status --urls` (issue 54).
@Suite struct VerdictDetailTests {
    @Test func theBrokenRuleIsKeptWithTheURLInBothStores() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let host = "rules.web.test"
        // A same-site canonical longer than an item URL may be: the crawl does not follow
        // it, and the page standing for it cannot be an item.
        let canonical = web.origin(host) + "/" + String(repeating: "long-", count: 500)
        web.page(host, "/", html: """
            <!doctype html><html><head><title>Refused</title><link rel=canonical href="\(canonical)"></head>
            <body><p>A page whose canonical is too long to be an item's identifier.</p></body></html>
            """)
        let folder = try TemporaryDirectory("verdict-detail")
        defer { folder.remove() }
        let store = try PostgresCluster.shared.get().newDatabase()
        let data = folder.url.appendingPathComponent("data").path
        for place in [["--data", data], ["--store", store]] {
            let crawl = try CommandRunner.run(["crawl", web.origin(host) + "/", "--resolve", web.resolveEntry(host), "--allow-private",
                                               "--delay", "0", "--no-warc", "--json"] + place)
            let report = try JSONParser.parse(crawl.stdout)
            #expect(report["skipped"]?["invalid-item"] == 1, "\(place[0]): \(crawl.stdout)")
            let detail = report["details"]?["invalid-item"]?.arrayValue?.first
            #expect(detail?["url"]?.stringValue == web.origin(host) + "/")
            #expect(detail?["detail"] == "uniqueIdentifier: at most 2048 bytes", "\(crawl.stdout)")

            let listed = try CommandRunner.run(["status", "--urls", "invalid-item", "--json"] + place)
            let rows = try JSONParser.parse(listed.stdout)["urls"]?.arrayValue ?? []
            #expect(rows.first?["detail"] == "uniqueIdentifier: at most 2048 bytes", "\(place[0]): \(listed.stdout)")
            let human = try CommandRunner.run(["status", "--urls", "invalid-item"] + place)
            #expect(human.stdout.contains("    uniqueIdentifier: at most 2048 bytes"), "\(human.stdout)")
        }
    }
}
