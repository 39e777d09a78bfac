import Foundation
import JSON
import Markup
import SearchlightTestSupport
import Testing
import WebURL

/// The Bolts resolvers' own App Links cases (Bolts-ObjC and Bolts-Android tests, as
/// `../shared/peer-data/applinks/` transcribes them): each case's `al:` tags written into a
/// page, read by the extractor, and the targets a device of that kind would try compared
/// with what Bolts asserts, in order.
@Suite(.enabled(if: PeerData.folder("applinks") != nil, "../shared/peer-data/applinks is not there"))
struct AppLinksConformanceTests {
    @Test func boltsCases() throws {
        let folder = try #require(PeerData.folder("applinks"))
        let data = try JSONParser.parse(String(decoding: Data(contentsOf: folder.appendingPathComponent("cases.json")), as: UTF8.self))
        let cases = try #require(data["cases"]?.arrayValue)
        #expect(cases.count == 18)
        let pageURL = "https://bolts.example/page"
        for (number, item) in cases.enumerated() {
            let tags = try #require(item["tags"]?.arrayValue)
            let meta = tags.map { tag -> String in
                let property = tag.arrayValue?.first?.stringValue ?? ""
                let content = tag.arrayValue?.last?.stringValue
                return "<meta property=\"\(property)\"" + (content.map { " content=\"\($0)\"" } ?? "") + ">"
            }.joined(separator: "\n")
            let html = "<!doctype html><html><head><title>Bolts</title>\n\(meta)\n</head><body><p>Page</p></body></html>"
            let page = MarkupExtractor().extract(Array(html.utf8), url: WebURL(pageURL))
            let links = try #require(page.appLinks, "case \(number)")
            let device = item["device"]?.stringValue
            let targets = device == "android" ? links.androidTargets : links.iPhoneTargets
            let expected = item["targets"]?.arrayValue ?? []
            #expect(targets.count == expected.count, "case \(number): \(targets)")
            for (target, want) in zip(targets, expected) {
                #expect(target.url == want["url"]?.stringValue, "case \(number)")
                #expect(target.appName == want["appName"]?.stringValue, "case \(number)")
                #expect(target.appStoreID == want["appStoreID"]?.stringValue, "case \(number)")
                #expect(target.package == want["package"]?.stringValue, "case \(number)")
                #expect(target.className == want["className"]?.stringValue, "case \(number)")
            }
            // Bolts' web URL: the page itself unless al:web:url names another, and none at
            // all when al:web:should_fallback forbids the web.
            let webURL = links.shouldFallbackToWeb ? (links.webURL ?? pageURL) : nil
            let wantWeb = item["webURL"]?.stringValue.map { $0 == "page" ? pageURL : $0 }
            #expect(webURL == wantWeb, "case \(number)")
        }
    }
}
