import Foundation
import Items
import JSON
import SearchIndex
import Testing

/// An index split into shards ranks as one index when every shard searches with the
/// statistics of the whole (``CorpusStatistics``): the statistics round a router runs,
/// here without processes.
@Suite struct ShardedRankingTests {
    static let words = ["apple", "banana", "cherry", "harbour", "lantern", "meadow", "orchid", "pepper", "quartz", "river",
                        "saffron", "thistle", "velvet", "willow", "zephyr", "garden", "market", "recipe", "travel", "music"]

    /// Items whose words are spread unevenly: item n holds word k when n is a multiple of k + 1,
    /// so early words are common and late ones rare; "lanterns" and "gardening" give stems.
    static func items() -> [SearchableItem] {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        return (0..<240).map { n in
            let held = words.indices.filter { n % ($0 + 1) == 0 }.map { words[$0] }
            let title = held.prefix(3).joined(separator: " ") + (n % 7 == 0 ? " lanterns" : "")
            let body = (held + (n % 5 == 0 ? ["gardening", "travel"] : [])).joined(separator: " ")
            return item("item-\(n)", title.isEmpty ? "untitled \(n)" : title, body: body, updated: now)
        }
    }

    /// The shard of item n: skewed on purpose, so that a term's share differs by shard
    /// (most of the `harbour` items sit in shard 0).
    static func shard(of n: Int) -> Int { n % 8 == 0 ? 0 : n % 3 }

    static let queries = ["apple", "banana cherry", "harbour", "lantern", "lanterns", "gardening recipe", "velvet willow zephyr",
                          "orchid pepper", "quartz river saffron thistle", "market music travel", "apple banana cherry harbour lantern"]

    struct Shards {
        let whole: TemporaryIndex
        let parts: [TemporaryIndex]

        init() throws {
            whole = try TemporaryIndex()
            parts = try (0..<3).map { _ in try TemporaryIndex() }
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            let all = ShardedRankingTests.items()
            try whole.index.commit(ItemBatch(validating: all), now: now)
            for (number, part) in parts.enumerated() {
                let mine = all.enumerated().filter { ShardedRankingTests.shard(of: $0.offset) == number }.map(\.element)
                try part.index.commit(ItemBatch(validating: mine), now: now)
            }
        }

        /// Every part's answer merged as a router merges them, ranked with the whole's
        /// statistics (`global`) or each part's own.
        func search(_ request: SearchRequest, global: Bool) throws -> [SearchHit] {
            try routed(request, over: parts.map(\.index), global: global)
        }
    }

    @Test func shardsRankedWithTheWholeIndexsStatisticsAnswerAsOneIndex() throws {
        let shards = try Shards()
        let now = Date(timeIntervalSince1970: 1_790_000_100)
        var differedWithOwnStatistics = 0
        for query in Self.queries {
            let request = SearchRequest(query, limit: 10, now: now)
            let single = try shards.whole.index.search(request).hits
            let sharded = try shards.search(request, global: true)
            #expect(sharded.map(\.item.uniqueIdentifier) == single.map(\.item.uniqueIdentifier), "\(query)")
            for (a, b) in zip(sharded, single) { #expect(abs(a.score - b.score) <= 1e-9 * max(1, abs(b.score)), "\(query): \(a.score) vs \(b.score)") }
            let own = try shards.search(request, global: false)
            if zip(own, single).contains(where: { $0.item.uniqueIdentifier != $1.item.uniqueIdentifier || abs($0.score - $1.score) > 1e-6 }) {
                differedWithOwnStatistics += 1
            }
        }
        // The check above could not fail if the parts' own statistics were already the whole's.
        #expect(differedWithOwnStatistics > 0)
    }

    /// A long request's relevance feedback runs over the shards as over one index: the
    /// whole index's first answer, its best documents' words and their statistics, each
    /// shard's part scored again — the same results at the same scores.
    @Test func longRequestsWithFeedbackAnswerAsOneIndex() throws {
        let shards = try Shards()
        let now = Date(timeIntervalSince1970: 1_790_000_100)
        let long = ["apple banana cherry harbour lantern meadow orchid", "pepper quartz river saffron thistle velvet willow zephyr",
                    "garden market recipe travel music apple river", "banana harbour meadow pepper river thistle willow garden recipe"]
        var feedbackMattered = 0
        for query in long {
            let request = SearchRequest(query, limit: 10, now: now)
            let single = try shards.whole.index.search(request).hits
            let sharded = try routed(request, over: shards.parts.map(\.index))
            #expect(sharded.map(\.item.uniqueIdentifier) == single.map(\.item.uniqueIdentifier), "\(query)")
            for (a, b) in zip(sharded, single) { #expect(a.score == b.score, "\(query): \(a.score) vs \(b.score)") }
            let without = try routed(request, over: shards.parts.map(\.index), feedback: false)
            if zip(without, single).contains(where: { $0.item.uniqueIdentifier != $1.item.uniqueIdentifier || $0.score != $1.score }) {
                feedbackMattered += 1
            }
        }
        // The check above could not fail if feedback changed nothing on these requests.
        #expect(feedbackMattered > 0)
    }

    /// The whole first answer is merged in one index's order, and a document's reading is
    /// taken only from the shard that holds it (another shard's word for it is not trusted).
    @Test func theFirstAnswerIsMergedInOrderAndReadingsComeFromTheirOwnShard() {
        let first = RelevanceFeedback.FirstAnswer([
            (shard: 0, candidates: [.init(score: 5, key: 9), .init(score: 3, key: 1)]),
            (shard: 1, candidates: [.init(score: 5, key: 2), .init(score: 4, key: 7)]),
        ])
        #expect(first.best.map(\.candidate.key) == [2, 9, 7, 1])
        #expect(first.share(of: 0, in: 2) == 1 && first.share(of: 1, in: 3) == 2)
        func reading(_ key: UInt64, _ score: Double) -> RelevanceFeedback.Reading { .init(score: score, key: key, length: 1, words: []) }
        let ordered = first.ordered([(shard: 0, readings: [reading(9, 5), reading(7, 99)]), (shard: 1, readings: [reading(2, 5), reading(7, 4)])])
        #expect(ordered.map(\.key) == [2, 9, 7])
        #expect(ordered.map(\.score) == [5, 5, 4], "shard 0's reading of shard 1's document is not taken")
    }

    @Test func completionsAndCorrectionsComeFromEveryShard() throws {
        let shards = try Shards()
        let now = Date(timeIntervalSince1970: 1_790_000_100)
        var typing = SearchRequest("orchid lant", limit: 10, now: now)
        typing.typing = true
        #expect(try shards.search(typing, global: true).map(\.item.uniqueIdentifier)
            == shards.whole.index.search(typing).hits.map(\.item.uniqueIdentifier))
        let typo = SearchRequest("harbuor", limit: 10, now: now)
        let single = try shards.whole.index.search(typo)
        #expect(!single.hits.isEmpty && single.corrections["harbuor"] == ["harbour"])
        #expect(try shards.search(typo, global: true).map(\.item.uniqueIdentifier) == single.hits.map(\.item.uniqueIdentifier))
    }

    @Test func statisticsFromTheNetworkAreChecked() throws {
        var statistics = CorpusStatistics()
        statistics.documents = 3
        statistics.tokens = 12
        statistics.languages = ["en"]
        statistics.frequencies = [[0x01, 0x61]: 2, Array("apple".utf8): 1]
        statistics.completions = [Array("ap".utf8): [Array("apple".utf8): 1]]
        let json = statistics.json
        #expect(try CorpusStatistics(json: json) == statistics)
        // Many shards' candidate lists together keep the most frequent a list may hold.
        var wide = CorpusStatistics()
        wide.spellings = [Array("lemmon".utf8): Dictionary(uniqueKeysWithValues: (0..<400).map { (Array("w\($0)".utf8), $0) })]
        let merged = CorpusStatistics.merged([wide, wide])
        #expect(merged.spellings[Array("lemmon".utf8)]?.count == CorpusStatistics.Limits.listEntries)
        #expect(merged.spellings[Array("lemmon".utf8)]?[Array("w399".utf8)] == 798)
        #expect(try CorpusStatistics(json: merged.json) == merged)
        let bad: [JSONValue] = [
            ["documents": -1, "tokens": 0, "languages": [], "terms": [:], "completions": [:], "spellings": [:]],
            ["documents": 1, "tokens": 0, "languages": [], "terms": ["zz": 1], "completions": [:], "spellings": [:]],
            ["documents": 1, "tokens": 0, "languages": [], "terms": ["61": 1.5], "completions": [:], "spellings": [:]],
            ["documents": 1, "tokens": 0, "languages": "en", "terms": [:], "completions": [:], "spellings": [:]],
            ["documents": 1, "tokens": 0, "languages": [], "completions": [:], "spellings": [:]],
        ]
        for value in bad { #expect(throws: SearchIndexError.self) { try CorpusStatistics(json: value) } }
        let tooMany = JSONValue.object(JSONObject((0..<(CorpusStatistics.Limits.terms + 1)).map { (String(format: "%08x", $0), JSONValue(1)) }))
        #expect(throws: SearchIndexError.self) {
            try CorpusStatistics(json: ["documents": 1, "tokens": 0, "languages": [], "terms": tooMany, "completions": [:], "spellings": [:]])
        }
    }
}
