import Foundation
import Gzip
import Testing
import WebRules
import WebURL

@Suite struct SitemapTests {
    let url = WebURL("https://shop.example/catalog/sitemap.xml")!

    @Test func readsAURLSetWithItsFields() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
              <url><loc> https://shop.example/catalog/a?x=1&amp;y=2 </loc><lastmod>2026-11-29</lastmod>
                <changefreq>Weekly</changefreq><priority>0.9</priority></url>
              <url><loc>https://shop.example/catalog/b</loc><lastmod>2026-11-29T10:30+01:00</lastmod></url>
              <url><loc>https://shop.example/other/c</loc></url>
              <url><loc>http://shop.example/catalog/d</loc></url>
              <url><loc>not a url</loc></url>
            </urlset>
            """
        let sitemap = Sitemap(parsing: Array(xml.utf8), url: url)
        #expect(sitemap.kind == .urlset)
        #expect(sitemap.entries.map(\.location.string) == ["https://shop.example/catalog/a?x=1&y=2", "https://shop.example/catalog/b"])
        #expect(sitemap.entries[0].changeFrequency == .weekly)
        #expect(sitemap.entries[0].priority == 0.9)
        #expect(sitemap.entries[1].priority == 0.5)
        #expect(sitemap.entries[0].lastModified == ISO8601DateFormatter().date(from: "2026-11-29T00:00:00Z"))
        #expect(sitemap.entries[1].lastModified == ISO8601DateFormatter().date(from: "2026-11-29T09:30:00Z"))
        #expect(sitemap.skipped["out-of-scope"] == 2, "another folder, another scheme")
        #expect(sitemap.skipped["invalid-url"] == 1)
    }

    @Test func aCrossSubmitAllowsAnotherHost() {
        let xml = "<urlset><url><loc>https://blog.example/post</loc></url></urlset>"
        #expect(Sitemap(parsing: Array(xml.utf8), url: url).entries.isEmpty)
        #expect(Sitemap(parsing: Array(xml.utf8), url: url, crossSubmitOrigins: ["https://blog.example"]).entries.count == 1)
    }

    @Test func readsAnIndexAGzipAndText() throws {
        let index = "<sitemapindex><sitemap><loc>https://shop.example/catalog/s1.xml.gz</loc></sitemap><sitemap><loc>https://cdn.example/s2.xml</loc></sitemap></sitemapindex>"
        let parsed = Sitemap(parsing: Array(index.utf8), url: url)
        #expect(parsed.kind == .index)
        #expect(parsed.entries.count == 2, "an index may point anywhere; the crawl checks its scope")
        let gz = Gzip.compress(Array("<urlset><url><loc>https://shop.example/catalog/z</loc></url></urlset>".utf8))
        #expect(Sitemap(parsing: gz, url: url).entries.first?.location.string == "https://shop.example/catalog/z")
        let text = Sitemap(parsing: Array("https://shop.example/catalog/1\n\nhttps://shop.example/catalog/2\r\n".utf8), url: url)
        #expect(text.kind == .text)
        #expect(text.entries.count == 2)
    }

    @Test func enforcesTheLimits() {
        let many = "<urlset>" + (0..<50_010).map { "<url><loc>https://shop.example/catalog/\($0)</loc></url>" }.joined() + "</urlset>"
        let sitemap = Sitemap(parsing: Array(many.utf8), url: url)
        #expect(sitemap.entries.count == 50_000)
        #expect(sitemap.skipped["over-limit"] == 10)
        let bomb = Gzip.compress([UInt8](repeating: 0x20, count: 60 * 1024 * 1024))
        #expect(Sitemap(parsing: bomb, url: url).error?.contains("gzip") == true, "more than 50 MB uncompressed")
        #expect(Sitemap(parsing: Array("<html><body>nope</body></html>".utf8), url: url).error != nil)
    }

    @Test func entitiesAreNotExpanded() {
        let xml = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <urlset><url><loc>https://shop.example/catalog/&lol2;</loc></url></urlset>
            """
        let sitemap = Sitemap(parsing: Array(xml.utf8), url: url)
        #expect(sitemap.entries.allSatisfy { !$0.location.string.contains("lollol") })
    }
}
