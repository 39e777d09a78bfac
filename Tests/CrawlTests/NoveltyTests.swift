import Items
@testable import Crawl
import Testing
import WebRules
import WebURL

/// The pure parts of the crawl's near-duplicate and URL-space checks: templates, SimHash,
/// the near-duplicate tables and the URL-pattern budget.
@Suite struct NoveltyTests {
    func url(_ text: String) -> WebURL { WebURL(text)! }

    @Test func templatesTakeOutVariableParts() {
        #expect(URLTemplate(url("https://a.test/calendar/day/17")) == URLTemplate(url("https://a.test/calendar/day/9001")))
        #expect(URLTemplate(url("https://a.test/calendar/day/17")).text == "https://a.test/calendar/day/{n}")
        #expect(URLTemplate(url("https://a.test/events/2026-12-17")).text == "https://a.test/events/{n}-{n}-{n}")
        #expect(URLTemplate(url("https://a.test/e/3f9a0c12d4")).text == "https://a.test/e/{hex}")
        #expect(URLTemplate(url("https://a.test/o/123e4567-e89b-12d3-a456-426614174000")).text == "https://a.test/o/{uuid}")
        #expect(URLTemplate(url("https://a.test/list?view=week&date=2026-12-17")).text == "https://a.test/list?date={n}-{n}-{n}&view=week")
        // Words stay: different views are different templates, a page without numbers is a template of one.
        #expect(URLTemplate(url("https://a.test/list?view=week")) != URLTemplate(url("https://a.test/list?view=month")))
        #expect(!URLTemplate(url("https://a.test/about")).isVariable)
        #expect(URLTemplate(url("https://a.test/p/12")).isVariable)
        #expect(URLTemplate(url("https://a.test/p/12")) != URLTemplate(url("https://b.test/p/12")))
        // "deadbeef" has no digit: a word, not an identifier.
        #expect(URLTemplate(url("https://a.test/deadbeef")).text == "https://a.test/deadbeef")
    }

    static let article = (1...400).map { "word\($0 % 97 == 0 ? "x" : "")\(["river", "stone", "garden", "recipe", "market", "camera", "travel", "ticket", "museum", "piano", "lesson", "coffee"][$0 % 12])\($0 % 31)" }
        .joined(separator: " ")

    @Test func simhashIsCloseForNearlyTheSameText() {
        let base = TextFingerprint(title: "Item", text: Self.article + " reference 17")
        let near = TextFingerprint(title: "Item", text: Self.article + " reference 18")
        let other = TextFingerprint(title: "Item", text: String(Self.article.split(separator: " ").reversed().joined(separator: " ")))
        #expect(TextFingerprint.distance(base.simhash, near.simhash) <= TextFingerprint.nearDuplicateDistance)
        #expect(TextFingerprint.distance(base.simhash, other.simhash) > 10)
        #expect(base == TextFingerprint(title: "Item", text: Self.article + " reference 17"), "stable: fingerprints are stored")
        // Case and digits: upper case folds; the novelty shingles leave numbers out.
        #expect(TextFingerprint(title: nil, text: "Blue Ceramic Teapot").simhash == TextFingerprint(title: nil, text: "blue ceramic teapot").simhash)
        #expect(Set(TextFingerprint(title: nil, text: "events on monday 17 december").shingles)
            == Set(TextFingerprint(title: nil, text: "events on monday 18 december").shingles))
        #expect(TextFingerprint(title: nil, text: "").simhash == 0)
    }

    /// The table-driven vote gives the bits a plain count of +1 and −1 per bit gives, across
    /// lane drains (more than 255 features) and ties (a tie leaves the bit clear).
    @Test func simhashVoteEqualsAPlainCount() {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 2, 254, 255, 256, 1_000, 3_000] {
            let features = (0..<count).map { index in index % 7 == 0 ? 0xFFFF_0000_FFFF_0000 : UInt64.random(in: .min ... .max, using: &generator) }
            var votes = [Int](repeating: 0, count: 64)
            for feature in features { for bit in 0..<64 { votes[bit] += (feature >> UInt64(bit)) & 1 == 1 ? 1 : -1 } }
            var expected: UInt64 = 0
            for bit in 0..<64 where votes[bit] > 0 { expected |= 1 << UInt64(bit) }
            var counts = TextFingerprint.BitCounts()
            for feature in features { counts.add(feature) }
            #expect(counts.majority() == expected, "\(count) features")
        }
        var set = TextFingerprint.HashSet64(capacity: 100)
        for value in [5, 0, 5, 1 << 40, 0, 7] as [UInt64] { set.insert(value) }
        #expect(set.elements == [5, 0, 1 << 40, 7], "distinct, in insertion order, zero included")
        var small = TextFingerprint.HashSet64(capacity: 1)
        for value in 0..<100 as Range<UInt64> { small.insert(value * 3); small.insert(value * 3) }
        #expect(small.elements == (0..<100).map { $0 * 3 }, "more than its capacity grows the table")
    }

    @Test func cjkTextIsShingledByCharacterPairs() {
        let a = TextFingerprint(title: nil, text: "星火直播今晚八点开始直播音乐会")
        let b = TextFingerprint(title: nil, text: "星火直播今晚八点开始直播电影节")
        #expect(a.shingles.count == 13, "15 characters make 14 pairs, 直播 twice")
        #expect(Set(a.shingles).intersection(b.shingles).count == 10)
    }

    @Test func nearDuplicateTablesFindPagesWithinThreeBits() {
        var index = NearDuplicateIndex()
        var generator = SystemRandomNumberGenerator()
        let prints = (0..<5000).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        for (number, print) in prints.enumerated() { index.insert(print, url: UInt64(number)) }
        for (number, print) in prints.prefix(200).enumerated() {
            // Three bits flipped, in different blocks or the same: still found.
            let flipped = print ^ (1 << UInt64(number % 64)) ^ (1 << UInt64((number * 7 + 3) % 64)) ^ (1 << UInt64((number * 13 + 5) % 64))
            #expect(index.hasNearDuplicate(of: flipped, url: 999_999))
            // A page is not its own near-duplicate.
            // (Two of 5,000 random fingerprints within 3 bits: odds about 1 in 10⁷.)
            #expect(!index.hasNearDuplicate(of: print, url: UInt64(number)))
        }
        // Random fingerprints are ~32 bits apart: no false matches.
        let strangers = (0..<200).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        #expect(strangers.filter { index.hasNearDuplicate(of: $0, url: 999_999) }.isEmpty)
    }

    @Test func aTemplateThatKeepsBringingNothingNewIsATrap() {
        var budget = URLPatternBudget()
        let boilerplate = TextFingerprint(title: "Riverside events", text: "Riverside Community Centre events rooms contact no events are scheduled").shingles
        var verdict: (URLTemplate, URLPatternBudget.Evidence)?
        var fetched = 0
        for day in 1...40 where verdict == nil {
            fetched += 1
            let words = day == 1 ? boilerplate : boilerplate + [UInt64(day)]
            verdict = budget.record(url("https://cal.test/day/\(day)"), duplicate: false, pageShingles: words)
        }
        let (template, evidence) = try! #require(verdict)
        #expect(template.text == "https://cal.test/day/{n}")
        #expect(evidence.verdict == .trap)
        #expect(fetched == URLPatternBudget.sample, "nine of the first ten brought nothing new")
        #expect(budget.isTrapped(url("https://cal.test/day/9001")))
        #expect(!budget.isTrapped(url("https://cal.test/week/3")))
        #expect(!budget.isTrapped(url("https://cal.test/about")))
    }

    @Test func aTemplateWhosePagesDifferIsContentAndNeverCapped() {
        var budget = URLPatternBudget()
        var verdict: (URLTemplate, URLPatternBudget.Evidence)?
        for product in 1...URLPatternBudget.judgedUntil {
            // Each product page shares its layout and brings a few words of its own.
            let shingles = [1, 2, 3, 4].map { UInt64($0) } + (0..<4).map { UInt64(product * 100 + $0) }
            verdict = budget.record(url("https://shop.test/p/\(product)"), duplicate: false, pageShingles: shingles)
            if product < URLPatternBudget.judgedUntil { #expect(verdict == nil) }
        }
        #expect(verdict?.1.verdict == .content)
        #expect(budget.record(url("https://shop.test/p/9999"), duplicate: true, pageShingles: []) == nil, "judged once")
        #expect(!budget.isTrapped(url("https://shop.test/p/9999")))
    }

    @Test func aCalendarWhoseFirstDaysBringNewWeekdaysIsStillATrap() {
        var budget = URLPatternBudget()
        var trappedAt: Int?
        for day in 1...50 where trappedAt == nil {
            // The first week brings a weekday each (three new shingles), then nothing.
            let shingles = [1, 2, 3, 4, 5].map { UInt64($0) } + (day <= 7 ? (0..<3).map { UInt64(day * 10 + $0) } : [])
            if budget.record(url("https://cal.test/events/2026-12-\(day)"), duplicate: false, pageShingles: shingles)?.1.verdict == .trap {
                trappedAt = day
            }
        }
        #expect(trappedAt == 15, "eight of the last ten stale")
    }

    @Test func aNewMonthsNameIsNewPhrasingButOneNewWord() {
        var budget = URLPatternBudget()
        var trappedAt: Int?
        for day in 1...50 where trappedAt == nil {
            // Every page says its month in phrases of its own (five new shingles), but the only
            // new word is the month's name, and only every 30 days.
            let shingles = [1, 2, 3].map { UInt64($0) } + (0..<5).map { UInt64(day * 10 + $0) }
            let words = [100, 101, 102].map { UInt64($0) } + [UInt64(1000 + day / 30)]
            if budget.record(url("https://cal.test/events/2026-12-\(day)"), duplicate: false, pageShingles: shingles, pageWords: words)?.1.verdict == .trap {
                trappedAt = day
            }
        }
        #expect(trappedAt == 10, "stale from the second page on: judged at the tenth")
        var shop = URLPatternBudget()
        for product in 1...50 {
            let words = (0..<12).map { UInt64(product * 100 + $0) }
            #expect(shop.record(url("https://shop.test/p/\(product)"), duplicate: false, pageShingles: words, pageWords: words)?.1.verdict != .trap)
        }
    }
}
