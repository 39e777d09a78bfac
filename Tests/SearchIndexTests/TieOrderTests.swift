import Foundation
import Items
import JSON
import Testing
import TextUtilities

@testable import SearchIndex

/// Equal scores in one total order (``ResultOrder``, ``TopK``): a catalogue of look-alike
/// items — the same short title, the same length, the same signals — gives hundreds of
/// exact ties, and every way of reading the results must agree on which come first.
@Suite struct TieOrderTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// 600 items in groups of identical text: every item of a group scores alike for any
    /// query; a few are rated, so the rescoring moves some of them.
    static func catalogue() -> [SearchableItem] {
        let colours = ["red", "blue", "green", "black", "white", "grey"]
        let kinds = ["running shoe", "walking shoe", "trail shoe", "shoe bag", "shoe laces"]
        return (0..<600).map { n in
            var item = item("sku-\(String(n, radix: 7))-\(n)", "\(colours[n % colours.count]) \(kinds[n % kinds.count])",
                            description: "A \(kinds[(n / 7) % kinds.count]) for every day.", updated: now)
            if n % 50 == 0 {
                item.rating = Double(n % 5) + 1
                item.ratingCount = 40
            }
            return item
        }
    }

    static let queries = ["shoe", "red shoe", "running", "laces bag", "every day", "blue trail shoe", "walking"]

    /// The page's identifiers, for several pages.
    static func pages(_ index: SearchIndex, _ query: String, size: Int, count: Int) throws -> [String] {
        try (0..<count).flatMap { page -> [String] in
            var request = SearchRequest(query, limit: size, now: now)
            request.offset = page * size
            return try index.search(request).hits.map(\.item.uniqueIdentifier)
        }
    }

    @Test func pagesPutTogetherAreOnePageAndRepeatedCallsAgree() throws {
        let t = try TemporaryIndex()
        let items = Self.catalogue()
        for start in stride(from: 0, to: items.count, by: 37) { try t.index.upsert(Array(items[start..<min(items.count, start + 37)]), now: Self.now) }
        var ties = 0
        for query in Self.queries {
            let whole = try t.index.search(SearchRequest(query, limit: 80, now: Self.now)).hits
            #expect(whole.count == 80, "\(query)")
            ties += zip(whole, whole.dropFirst()).filter { $0.score == $1.score }.count
            let ids = whole.map(\.item.uniqueIdentifier)
            #expect(try Self.pages(t.index, query, size: 10, count: 8) == ids, "\(query): pages of 10")
            #expect(try Self.pages(t.index, query, size: 40, count: 2) == ids, "\(query): pages of 40")
            #expect(try Self.pages(t.index, query, size: 7, count: 11).prefix(77) == ids.prefix(77), "\(query): pages of 7")
            #expect(try t.index.search(SearchRequest(query, limit: 80, now: Self.now)).hits.map(\.item.uniqueIdentifier) == ids, "\(query): again")
            // Past the rescoring window the order is the first stage's: relevance, then key.
            for (a, b) in zip(whole, whole.dropFirst()) where a.relevance == b.relevance && a.score == b.score {
                #expect(a.item.key.orderKey < b.item.key.orderKey, "\(query): equal results ordered by their keys")
            }
        }
        // The checks above could not fail without ties.
        #expect(ties > 300)
    }

    @Test func theOrderDoesNotDependOnHowTheItemsWereWritten() throws {
        let items = Self.catalogue()
        let once = try TemporaryIndex()
        try once.index.upsert(items, now: Self.now)
        // Another order, other commits (other segments, merges, other rowids), a replaced item.
        let shuffled = try TemporaryIndex()
        var generator = SplitMix64(seed: 9)
        let order = items.shuffled(using: &generator)
        for start in stride(from: 0, to: order.count, by: 23) { try shuffled.index.upsert(Array(order[start..<min(order.count, start + 23)]), now: Self.now) }
        try shuffled.index.upsert([items[123]], now: Self.now)
        for query in Self.queries {
            for retrieval in [SearchIndex.Retrieval.pruned, .exhaustive] {
                let a = try once.index.search(SearchRequest(query, limit: 60, now: Self.now), retrieval: retrieval).hits
                let b = try shuffled.index.search(SearchRequest(query, limit: 60, now: Self.now), retrieval: retrieval).hits
                #expect(a.map(\.item.uniqueIdentifier) == b.map(\.item.uniqueIdentifier), "\(query) \(retrieval)")
            }
        }
    }

    @Test func shardsMergedAsARouterMergesThemAnswerAsOneIndex() throws {
        let items = Self.catalogue()
        let whole = try TemporaryIndex()
        try whole.index.upsert(items, now: Self.now)
        let parts = try (0..<4).map { _ in try TemporaryIndex() }
        for (n, item) in items.enumerated() { try parts[(n * 7 + n / 5) % 4].index.upsert([item], now: Self.now) }
        for query in Self.queries {
            for (offset, limit) in [(0, 10), (10, 10), (30, 20), (0, 60), (55, 10)] {
                var request = SearchRequest(query, limit: limit, now: Self.now)
                request.offset = offset
                let single = try whole.index.search(request).hits
                let merged = try routed(request, over: parts.map(\.index))
                #expect(merged.map(\.item.uniqueIdentifier) == single.map(\.item.uniqueIdentifier), "\(query) \(offset) \(limit)")
                #expect(merged.map(\.score) == single.map(\.score), "\(query) \(offset) \(limit)")
            }
        }
    }

    @Test func theHeapKeepsTheBestByScoreThenKeyWhateverTheOrderOfArrival() {
        var generator = SplitMix64(seed: 4)
        let entries: [TopK.Entry] = (0..<500).map { (n: Int) -> TopK.Entry in
            TopK.Entry(score: Double(n % 4), key: UInt64(n * 7919 % 1000), rowid: Int64(n))
        }
        let expected: [Int64] = entries.sorted { $0.precedes($1) }.prefix(25).map { $0.rowid }
        for _ in 0..<20 {
            var heap = TopK(capacity: 25)
            for entry in entries.shuffled(using: &generator) where heap.admits(entry.score) {
                heap.collect(entry.score, key: entry.key, rowid: entry.rowid)
            }
            let kept: [Int64] = heap.sorted.map { $0.rowid }
            #expect(kept == expected)
        }
        // Rescoring is stable past the window, and orders the window by score then key.
        let candidates: [ResultOrder.Candidate] = (0..<60).map { (n: Int) -> ResultOrder.Candidate in
            ResultOrder.Candidate(relevance: Double(60 - n), score: Double(n % 3), key: UInt64(100 - n))
        }
        let order = ResultOrder.rescored(candidates)
        #expect(Array(order[50...]) == Array(50..<60))
        #expect(order.prefix(3) == [47, 44, 41], "score 2, then the lowest keys")
    }
}
