import Foundation
import HTTPServer
import JSON
import SearchlightTestSupport
import Testing

/// A shop with a category menu, a "Best sellers" sidebar, "You may also like" blocks and a
/// footer on every page, and a long buying guide (issue 26): searches find pages by what they
/// are about, not by their boilerplate; a passage far into the guide is found; a product's
/// snippet is not its title again.
@Suite(.serialized) struct MainContentCrawlTests {
    static let shop = "outfitters.web.test"
    static let products = ["Storm rain jacket", "Summit headlamp", "Ridge tent", "Trail runner", "Alpine stove", "Glacier gloves"]

    static func layout(_ title: String, _ main: String) -> String {
        let menu = ["Jackets", "Lamps", "Tents", "Shoes", "Stoves", "Gloves"].map { "<li><a href=\"/c/\($0.lowercased())\">\($0)</a></li>" }.joined()
        let products = Self.products.enumerated().map { "<li><a href=\"/p/\($0.offset)\">\($0.element)</a></li>" }.joined()
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(title) — Peak Outfitters</title></head><body>
            <header><nav class="main-nav"><ul>\(menu)</ul></nav></header>
            <div class="layout"><aside class="sidebar"><h3>Best sellers</h3><ul>\(products)</ul>
            <p>Members collect points on every order and swap them for repairs, rentals and guided weekends in the mountains.</p></aside>
            <main><article>\(main)</article>
            <section class="related"><h2>You may also like</h2><ul>\(products)</ul></section></main></div>
            <footer><p>Peak Outfitters, Bergstrasse 12, Innsbruck. Customer service weekdays from nine to five, returns within thirty days.</p></footer>
            <p><a href="/guide">Buying guide</a> \(Self.products.indices.map { "<a href=\"/p/\($0)\">p\($0)</a>" }.joined(separator: " "))</p>
            </body></html>
            """
    }

    static func product(_ index: Int) -> String {
        let name = Self.products[index]
        let details = ["waterproof shell with taped seams", "400 lumen beam with a red night mode", "two-person dome with two porches",
                       "grippy lug sole for muddy descents", "burns gas or petrol at altitude", "insulated leather palms"][index]
        return layout(name, "<h1>\(name)</h1><p>The \(name.lowercased()) is our pick for long days outside: a \(details), tested by our staff on three seasons of trips.</p>"
            + "<p>It comes with a two-year warranty and free repairs in our workshop, and weighs less than its rivals in the same class.</p>")
    }

    static var guide: String {
        let filler = (0..<60).map { "<p>Section \($0): how to choose a tent for the season, the ground and the number of people you share it with, and what the weight means on long trails.</p>" }.joined()
        return layout("Buying guide", "<h1>Buying guide</h1>\(filler)<p>Finally, practise pitching the tent in your garden before the first night on a windswept saddle.</p>")
    }

    @Test func boilerplateStaysOutOfSearchAndTheMainTextIsFoundWhole() throws {
        let web = try FixtureWeb(tls: true)
        web.page(Self.shop, "/", html: Self.layout("Peak Outfitters", "<h1>Peak Outfitters</h1><p>Gear for the mountains since 1998, chosen and repaired by people who use it.</p>"))
        web.page(Self.shop, "/guide", html: Self.guide)
        for index in Self.products.indices { web.page(Self.shop, "/p/\(index)", html: Self.product(index)) }
        let crawl = try CrawlRunner(web: web, hosts: [Self.shop])
        defer { web.stop(); crawl.remove() }
        let (result, _) = try crawl.crawl([web.origin(Self.shop) + "/"], ["--max-pages", "50"])
        #expect(result.status == 0, "\(result.stderr)")
        func urls(_ query: String) throws -> [String] { try crawl.search(query).compactMap { $0["url"]?.stringValue } }
        let origin = web.origin(Self.shop)
        #expect(try urls("headlamp") == [origin + "/p/1"], "only the headlamp's own page, not every sidebar naming it")
        #expect(try urls("Innsbruck Bergstrasse").isEmpty, "the footer is nobody's text")
        let sidebar = try urls("rentals")
        #expect(sidebar.isEmpty, "nor the sidebar's: \(sidebar)")
        #expect(try urls("windswept saddle") == [origin + "/guide"], "a passage far into the guide is found")
        let hit = try #require(try crawl.search("summit headlamp").first)
        let snippet = hit["snippet"]?.stringValue ?? hit["description"]?.stringValue ?? ""
        #expect(!snippet.isEmpty && snippet != hit["title"]?.stringValue, "the snippet is not the title again: \(snippet)")
    }
}
