import Foundation
import HTTPServer
import JSON
import SearchlightTestSupport
import Testing

/// A web where most URLs lead nowhere new — an endless events calendar, a site of
/// near-identical template pages — next to a shop whose product pages share a template
/// but not their content, and a small ordinary site: the crawl caps the first two and
/// crawls the others whole.
@Suite(.serialized) struct URLSpaceTests {
    static let calendar = "calendar.web.test"
    static let mirror = "mirror.web.test"
    static let shop = "shop.web.test"
    static let plain = "plain.web.test"
    static let products = 80

    func web() throws -> (FixtureWeb, CrawlRunner) {
        let web = try FixtureWeb(tls: true)
        web.page(Self.calendar, "/", html: page("Riverside Community Centre", links: ["/events/2026-12-01"]))
        web.fallback(Self.calendar) { request in Self.calendarPage(request.path).map { .html($0) } ?? .notFound }

        web.page(Self.mirror, "/", html: page("Lakeside Ledger", links: ["/about", "/item?id=1"], body: "A small town newspaper."))
        web.page(Self.mirror, "/about", html: page("About the Lakeside Ledger", body: "Published weekly since 1921 by volunteers."))
        web.route(Self.mirror, "/item") { request in
            let id = Int(request.queryValue("id") ?? "") ?? 0
            return .html(page("Lakeside Ledger archive", links: ["/item?id=\(id + 1)", "/item?id=\(id + 2)"],
                              body: Self.article + " Reference number \(id)."))
        }

        web.page(Self.shop, "/", html: page("Potter's Corner shop", links: (1...Self.products).map { "/p/\($0)" }))
        web.fallback(Self.shop) { request in
            guard request.path.hasPrefix("/p/"), let number = Int(request.path.dropFirst(3)), (1...Self.products).contains(number) else {
                return .notFound
            }
            return .html(Self.productPage(number))
        }

        let pages = ["/", "/menu", "/hours", "/team", "/catering", "/history", "/reviews", "/gift-cards", "/jobs", "/press"]
        for (index, path) in pages.enumerated() {
            web.page(Self.plain, path, html: page("Harbour Bakery \(path.dropFirst())", links: pages,
                                                  body: "Sourdough, rye and \(["cinnamon", "cardamom", "poppy seed", "walnut", "fig"][index % 5]) loaves."))
        }
        return (web, try CrawlRunner(web: web, hosts: [Self.calendar, Self.mirror, Self.shop, Self.plain]))
    }

    @Test func capsURLSpacesAndCrawlsRealSitesWhole() throws {
        let (web, crawl) = try web()
        defer { web.stop(); crawl.remove() }
        let seeds = [Self.calendar, Self.mirror, Self.shop, Self.plain].map { web.origin($0) + "/" }
        let (result, report) = try crawl.crawl(seeds, ["--max-pages", "2000"], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(report)
        func fetched(_ host: String) -> Int { json["hosts"]?[web.origin(host)]?["fetched"]?.intValue ?? 0 }
        func indexed(_ host: String) -> Int { json["hosts"]?[web.origin(host)]?["indexed"]?.intValue ?? 0 }
        let patterns = json["patterns"]?.arrayValue ?? []
        func verdict(_ template: String) -> String? {
            patterns.first { $0["template"]?.stringValue == template }?["verdict"]?.stringValue
        }

        // The endless calendar: each view judged a trap after a sample of pages.
        let calendar = web.origin(Self.calendar)
        #expect(verdict(calendar + "/events/{n}-{n}-{n}") == "trap", "\(patterns)")
        #expect(verdict(calendar + "/events/week/{n}-W{n}") == "trap", "\(patterns)")
        #expect(fetched(Self.calendar) <= 100, "the calendar took \(fetched(Self.calendar)) fetches")
        #expect(json.skipped("trap-pattern") > 0)

        // Near-identical template pages: near-duplicates, then a trap.
        #expect(verdict(web.origin(Self.mirror) + "/item?id={n}") == "trap", "\(patterns)")
        #expect(json.skipped("near-duplicate") >= 3)
        #expect(fetched(Self.mirror) <= 20)
        let archive = try crawl.search("harbour lantern festival").filter { $0["title"]?.stringValue == "Lakeside Ledger archive" }
        #expect(archive.count == 1, "the archive page is indexed once: \(archive.map { $0["url"]?.stringValue ?? "" })")

        // The shop: one template, every page its own product, judged content and crawled whole.
        #expect(verdict(web.origin(Self.shop) + "/p/{n}") == "content", "\(patterns)")
        #expect(indexed(Self.shop) == Self.products + 1)
        #expect(try crawl.search("\(Self.productName(63))").first?["url"]?.stringValue == web.origin(Self.shop) + "/p/63")
        // The bakery: every page.
        #expect(indexed(Self.plain) == 10)
        let summary = try CommandRunner.run(["status", "--data", crawl.data])
        #expect(summary.stdout.contains("near-duplicate"), "\(summary.stdout)")
    }

    /// A catalogue whose product pages share one trade vocabulary — each brings only its
    /// product's name, its schema.org Product and its deep link — is crawled whole; and a
    /// site's near-identical pages that its sitemap lists are all fetched (the owner declared
    /// them), the duplicates still indexed once, while its calendar is still capped.
    @Test func aCatalogueIsNeverATrapNorAreTheURLsASitemapLists() throws {
        let trade = "fittings.web.test", listed = "listed.web.test"
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        let count = 24
        web.page(trade, "/", html: page("Fittings and valves", links: (1...count).map { "/p/\($0)" }))
        web.fallback(trade) { request in
            guard request.path.hasPrefix("/p/"), let number = Int(request.path.dropFirst(3)), (1...count).contains(number) else { return .notFound }
            let name = Self.productName(number + 500)
            let schema = #"<script type="application/ld+json">{"@type": "Product", "name": "\#(name) fitting", "sku": "FV-\#(number)"}</script>"#
                + #"<meta name="apple-itunes-app" content="app-id=1234567890, app-argument=fittings://product/\#(name.replacingOccurrences(of: " ", with: "-"))">"#
            return .html(page("\(name) fitting — Fittings and valves", links: ["/", "/p/\(number % count + 1)"], head: schema,
                              body: "Stainless steel press fitting for water and gas lines, DN \(15 + number % 4 * 5), PN 16, pressure tested, "
                                + "certified for drinking water, with an EPDM sealing ring. Ships in two days; trade prices on request."))
        }
        let sitemap = "<urlset>" + (1...30).map { "<url><loc>\(web.origin(listed))/item?id=\($0)</loc></url>" }.joined() + "</urlset>"
        web.file(listed, "/robots.txt", contentType: "text/plain", bytes: Array("User-agent: *\nAllow: /\nSitemap: \(web.origin(listed))/maps/all.xml\n".utf8))
        web.file(listed, "/maps/all.xml", contentType: "application/xml", bytes: Array(sitemap.utf8))
        web.page(listed, "/", html: page("Lakeside Ledger", links: ["/item?id=1"]))
        web.route(listed, "/item") { request in
            let id = Int(request.queryValue("id") ?? "") ?? 0
            return .html(page("Lakeside Ledger archive", links: ["/item?id=\(id + 1)"], body: Self.article + " Reference number \(id)."))
        }
        web.page(Self.calendar, "/", html: page("Riverside Community Centre", links: ["/events/2026-12-01"]))
        web.fallback(Self.calendar) { request in Self.calendarPage(request.path).map { .html($0) } ?? .notFound }
        let crawl = try CrawlRunner(web: web, hosts: [trade, listed, Self.calendar])
        defer { crawl.remove() }
        let (result, report) = try crawl.crawl([trade, listed, Self.calendar].map { web.origin($0) + "/" }, ["--max-pages", "1000"], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(report)
        func host(_ name: String, _ field: String) -> Int { json["hosts"]?[web.origin(name)]?[field]?.intValue ?? 0 }
        #expect(host(trade, "indexed") == count + 1, "every product: \(json["patterns"] ?? .null)")
        #expect(try crawl.search(Self.productName(520)).first?["url"]?.stringValue == web.origin(trade) + "/p/20")
        let listedItems = web.requests.filter { $0.hasPrefix(listed + "/item") }
        let missing = (1...30).filter { !listedItems.contains(listed + "/item?id=\($0)") }
        #expect(missing.isEmpty, "every listed URL fetched; not: \(missing) \(json["patterns"] ?? .null) \(json["skipped"] ?? .null)")
        #expect(json.skipped("near-duplicate") >= 3, "their copies still indexed once")
        #expect(host(Self.calendar, "fetched") <= 100, "the calendar is still capped: \(host(Self.calendar, "fetched"))")
        #expect(json.skipped("trap-pattern") > 0)
    }

    /// `--no-trap-detection` turns the URL-pattern budget off everywhere: for links found on
    /// pages as for URLs coming due (links were once dropped as `trap-pattern` with it).
    @Test func withoutTrapDetectionNoLinkIsDroppedAsATrap() throws {
        let web = try FixtureWeb(tls: true)
        defer { web.stop() }
        web.page(Self.calendar, "/", html: page("Riverside Community Centre", links: ["/events/2026-12-01"]))
        web.fallback(Self.calendar) { request in Self.calendarPage(request.path).map { .html($0) } ?? .notFound }
        let crawl = try CrawlRunner(web: web, hosts: [Self.calendar])
        defer { crawl.remove() }
        let (result, report) = try crawl.crawl([web.origin(Self.calendar) + "/"], ["--max-pages", "150", "--no-trap-detection"], timeout: 300)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(report)
        #expect(json.skipped("trap-pattern") == 0, "\(json["skipped"] ?? .null)")
        #expect((json["hosts"]?[web.origin(Self.calendar)]?["fetched"]?.intValue ?? 0) > 100, "the budget did not stop the calendar")
    }

    // MARK: the sites

    /// Days link to the next day and to their week, month and year; weeks, months and
    /// years to the next one and their first day: an endless space of empty pages.
    static func calendarPage(_ path: String) -> String? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = path.split(separator: "/").map(String.init)
        guard parts.first == "events", parts.count >= 2 else { return nil }
        func formatter(_ format: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.calendar = calendar
            formatter.timeZone = calendar.timeZone
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = format
            return formatter
        }
        func date(_ text: String, _ format: String) -> Date? { formatter(format).date(from: text) }
        func text(_ date: Date, _ format: String) -> String { formatter(format).string(from: date) }
        func links(for day: Date) -> [String] {
            let week = calendar.component(.weekOfYear, from: day)
            let weekYear = calendar.component(.yearForWeekOfYear, from: day)
            return ["/events/week/\(weekYear)-W\(week)", "/events/month/\(text(day, "yyyy-MM"))", "/events/year/\(text(day, "yyyy"))"]
        }
        let chrome = "Riverside Community Centre. Events, rooms for hire, classes and the community garden. "
            + "Open Monday to Saturday from nine in the morning. 14 Mill Lane, Riverside. Call the front desk to book a room."
        switch (parts.count, parts.count > 2 ? parts[1] : "") {
        case (2, _):
            guard let day = date(parts[1], "yyyy-MM-dd") else { return nil }
            let next = calendar.date(byAdding: .day, value: 1, to: day)!
            return page("Events on \(text(day, "EEEE, MMMM d, yyyy"))", links: ["/events/\(text(next, "yyyy-MM-dd"))"] + links(for: day),
                        body: "No events are scheduled for \(text(day, "EEEE, MMMM d")). Next day: \(text(next, "EEEE, MMMM d")). " + chrome)
        case (3, "week"):
            let numbers = parts[2].split(separator: "-W").compactMap { Int($0) }
            guard numbers.count == 2, let first = calendar.date(from: DateComponents(weekOfYear: numbers[1], yearForWeekOfYear: numbers[0])) else {
                return nil
            }
            let next = calendar.date(byAdding: .weekOfYear, value: 1, to: first)!
            let nextWeek = "\(calendar.component(.yearForWeekOfYear, from: next))-W\(calendar.component(.weekOfYear, from: next))"
            return page("Week \(numbers[1]) of \(numbers[0])", links: ["/events/week/\(nextWeek)", "/events/\(text(first, "yyyy-MM-dd"))"],
                        body: "Nothing on this week. " + chrome)
        case (3, "month"):
            guard let first = date(parts[2], "yyyy-MM") else { return nil }
            let next = calendar.date(byAdding: .month, value: 1, to: first)!
            return page("Events in \(text(first, "MMMM yyyy"))", links: ["/events/month/\(text(next, "yyyy-MM"))", "/events/\(text(first, "yyyy-MM-dd"))"],
                        body: "Nothing on this month. " + chrome)
        case (3, "year"):
            guard let year = Int(parts[2]) else { return nil }
            return page("Events in \(year)", links: ["/events/year/\(year + 1)", "/events/\(year)-01-01"], body: "Nothing on this year. " + chrome)
        default:
            return nil
        }
    }

    /// The newspaper's archive page, the same on every `/item?id=`.
    static let article = (0..<40).map { sentence in
        ["The harbour lantern festival returns to Lakeside this winter", "with music on the quay and food stalls along the promenade",
         "Volunteers will hang two thousand paper lanterns", "and the ferry runs late every evening of the festival week"][sentence % 4]
            + " (part \(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"][sentence / 4]))."
    }.joined(separator: " ")

    /// Made-up words, different for every seed.
    static func madeUpWords(_ seed: Int, _ count: Int) -> [String] {
        let syllables = ["ka", "lo", "mi", "ren", "tas", "vu", "bel", "dor", "fin", "gar", "hul", "jin", "kor", "lum", "nes", "pim"]
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            (0..<3).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return syllables[Int(state >> 60)]
            }.joined()
        }
    }

    static func productName(_ number: Int) -> String { madeUpWords(number, 2).joined(separator: " ") }

    static func productPage(_ number: Int) -> String {
        let name = productName(number)
        let description = madeUpWords(number + 10_000, 12).joined(separator: " ")
        return page("\(name) — Potter's Corner", links: ["/", "/p/\(number % products + 1)"],
                    body: "\(name): hand-thrown stoneware, \(description). Ships in five days; free returns within a month.")
    }
}
