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
