import Foundation
import JSON
import SearchlightTestSupport
import Testing
import WebRules
import WebURL

/// crawler-commons' sitemap tests (the parser of Nutch and StormCrawler), in its lenient
/// mode: every case's pages or index entries, as its test asserts them.
@Suite(.enabled(if: PeerData.folder("crawler_commons") != nil, "../shared/peer-data/crawler_commons is not there"))
struct SitemapConformanceTests {
    @Test func crawlerCommonsCases() throws {
        let folder = try #require(PeerData.folder("crawler_commons"))
        let cases = try JSONParser.parse(String(decoding: Data(contentsOf: folder.appendingPathComponent("cases.json")), as: UTF8.self))
        let list = try #require(cases["cases"]?.arrayValue)
        #expect(list.count >= 30)
        for item in list {
            let name = item["test"]?.stringValue ?? "?"
            let url = try #require(item["url"]?.stringValue.flatMap(WebURL.init), "\(name)")
            let body: [UInt8]
            if let file = item["file"]?.stringValue {
                body = Array(try Data(contentsOf: folder.appendingPathComponent(file)))
            } else {
                body = Array((item["body"]?.stringValue ?? "").utf8)
            }
            let sitemap = Sitemap(parsing: body, url: url)
            let found = Set(sitemap.entries.map(\.location.string))
            let normal: (JSONValue) -> String? = { $0.stringValue.map { WebURL($0)?.string ?? $0 } }
            if let pages = item["pages"]?.arrayValue {
                #expect(sitemap.kind != .index, "\(name)")
                #expect(found == Set(pages.compactMap(normal)), "\(name)")
            }
            if let sitemaps = item["sitemaps"]?.arrayValue {
                #expect(sitemap.kind == .index, "\(name)")
                #expect(found == Set(sitemaps.compactMap(normal)), "\(name)")
            }
        }
    }
}
