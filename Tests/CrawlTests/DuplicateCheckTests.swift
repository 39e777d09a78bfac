import Fetch
import Foundation
@testable import Crawl
import EmbeddedStore
import Items
import SearchIndex
import SearchlightTestSupport
import StoreSeams
import Testing
import WebRules
import WebURL

/// Whether a page's content is already indexed under another URL (``DuplicateCheck``): the
/// same body this run, and near-identical text on the same host; other hosts and the page's
/// own URL are not duplicates.
@Suite struct DuplicateCheckTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)
    static let text = String(repeating: "Quince frangipane tart with almond cream in a sweet shortcrust case, baked slowly. ", count: 12)

    static func page(_ url: String, body: String, text: String) -> PageAnalyzer.Result {
        let address = WebURL(url)!
        var page = PageAnalyzer.Result(entry: FrontierEntry(id: 1, url: address, origin: address.origin, depth: 1),
                                       kind: .indexed(try! SearchableItem(uniqueIdentifier: url, title: "Tart", webURL: url, source: .crawled).validated(.crawled, now: Date())),
                                       status: 200, bytes: body.utf8.count)
        page.digest = ContentDigest(of: Array(body.utf8))
        page.fingerprint = TextFingerprint(title: "Tart", text: text)
        return page
    }

    @Test func sameBodyAndNearTextAreDuplicatesOnTheirHostOnly() throws {
        let folder = try TemporaryDirectory("duplicates")
        defer { folder.remove() }
        let store = try LocalCrawlStore(dataDirectory: folder.url.path)
        var check = DuplicateCheck()
        for origin in ["https://a.example", "https://b.example"] { try check.start(origin, store: store) }
        let admission = LinkAdmission(keys: FrontierKey(), scope: try CrawlScope(seeds: [WebURL("https://a.example/")!, WebURL("https://b.example/")!]),
                                      maximumDepth: 5)
        let configuration = CrawlConfiguration(dataDirectory: folder.url.path, fetch: FetchConfiguration(userAgent: "test"))
        func learn(_ page: PageAnalyzer.Result) throws {
            let duplicate = try check.duplicate(of: page, store: store)
            #expect(duplicate == nil)
            check.learn(PageDecision(page, duplicate: duplicate, admission: admission, configuration: configuration, now: Self.now), page: page)
        }
        let first = Self.page("https://a.example/tart", body: "<p>\(Self.text)</p>", text: Self.text)
        try learn(first)
        #expect(try check.duplicate(of: first, store: store) == nil, "a page is not a duplicate of itself")
        let copy = Self.page("https://a.example/tart?print=1", body: "<p>\(Self.text)</p>", text: Self.text)
        #expect(try check.duplicate(of: copy, store: store) == .exact(of: "https://a.example/tart"))
        let near = Self.page("https://a.example/tart-2", body: "<div>\(Self.text)</div>", text: Self.text + " Serves eight.")
        #expect(try check.duplicate(of: near, store: store) == .near)
        let elsewhere = Self.page("https://b.example/tart", body: "<div>\(Self.text)!</div>", text: Self.text + " Serves eight.")
        #expect(try check.duplicate(of: elsewhere, store: store) == nil, "near-identical text on another host is its own page")
        let other = Self.page("https://a.example/plum", body: "<p>plum</p>", text: "Plum galette folded around sliced plums and marzipan, baked on a sheet.")
        #expect(try check.duplicate(of: other, store: store) == nil)
    }
}
