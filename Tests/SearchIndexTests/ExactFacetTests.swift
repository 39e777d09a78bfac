import Foundation
import Items
import Testing

@testable import SearchIndex

/// Facets count every match (issue 54): with thousands of matches over several segments,
/// items deleted, replaced and expired since their segments were written, and a filter, the
/// counts and the total are what counting the items one by one gives; split over shards, the
/// parts add up to the whole.
@Suite struct ExactFacetTests {
    private struct Model {
        var id: String
        var title: String
        var contentType: String
        var site: String
        var expires: Date?
    }

    private static func searchable(_ model: Model) -> SearchableItem {
        var entry = item(model.id, model.title, web: "https://\(model.site)/\(model.id)", expires: model.expires)
        entry.contentType = model.contentType
        return entry
    }

    /// Counts of each facet over the models whose title holds any word of `words` (the
    /// engine ranks any-word matches, those with every word first).
    private static func brute(_ models: [String: Model], words: [String], site: String? = nil, now: Date)
        -> (total: Int, types: [String: Int], sites: [String: Int])
    {
        var types: [String: Int] = [:]
        var sites: [String: Int] = [:]
        var total = 0
        for model in models.values {
            let titleWords = Set(model.title.split(separator: " ").map(String.init))
            guard words.contains(where: titleWords.contains), site == nil || model.site == site, model.expires.map({ $0 > now }) ?? true else { continue }
            total += 1
            types[model.contentType, default: 0] += 1
            sites[model.site, default: 0] += 1
        }
        return (total, types, sites)
    }

    private static func counts(_ facets: FacetCounts?, _ facet: Facet) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: (facets?.counts[facet] ?? []).map { ($0.value, $0.count) })
    }

    @Test func countsEveryMatchAfterDeletionsReplacementsAndExpiry() throws {
        let t = try TemporaryIndex()
        let now = Date()
        let types = ["public.recipe", "public.image", "public.movie"]
        var models: [String: Model] = [:]
        // Five batches: five segments (or fewer after merges), 2,500 items, all with "lemon".
        for batch in 0..<5 {
            var list: [SearchableItem] = []
            for i in (batch * 500)..<((batch + 1) * 500) {
                let model = Model(id: "i\(i)", title: i % 4 == 0 ? "lemon tart \(i)" : "lemon cake \(i)", contentType: types[i % 3],
                                  site: "site\(i % 7).example", expires: i % 50 == 7 ? now.addingTimeInterval(3600) : nil)
                models[model.id] = model
                list.append(Self.searchable(model))
            }
            try t.index.upsert(list)
        }
        var request = SearchRequest("lemon", limit: 5, now: now)
        request.facets = [.contentType, .domain]
        let before = try t.index.answer(request)
        let expected = Self.brute(models, words: ["lemon"], now: now)
        #expect(before.response.total == 2500 && expected.total == 2500)
        #expect(before.response.totalIsExact && before.response.facets?.exact == true)
        #expect(Self.counts(before.response.facets, .contentType) == expected.types)
        #expect(Self.counts(before.response.facets, .domain) == expected.sites)
        #expect(before.dependencies.countsEveryMatch, "a cache drops it when any row is removed")

        // Deleted (past the page), replaced on another site, and an hour later some expired.
        let deleted = (0..<2500).filter { $0 % 9 == 4 }.map { "i\($0)" }
        #expect(try t.index.delete(identifiers: deleted) == deleted.count)
        for id in deleted { models[id] = nil }
        var moved: [SearchableItem] = []
        for i in stride(from: 1, to: 2500, by: 13) where models["i\(i)"] != nil {
            models["i\(i)"]?.site = "moved.example"
            moved.append(Self.searchable(models["i\(i)"]!))
        }
        try t.index.upsert(moved)
        let later = now.addingTimeInterval(7200)
        for (query, words) in [("lemon", ["lemon"]), ("tart", ["tart"]), ("tart harbour", ["tart", "harbour"])] {
            var asked = SearchRequest(query, limit: 5, now: later)
            asked.facets = [.contentType, .domain]
            let answer = try t.index.search(asked)
            let truth = Self.brute(models, words: words, now: later)
            #expect(answer.total == truth.total, "\(query)")
            #expect(Self.counts(answer.facets, .contentType) == truth.types, "\(query)")
            #expect(Self.counts(answer.facets, .domain) == truth.sites, "\(query)")
            #expect(answer.facets?.exact == true)
            // A filter narrows every count.
            asked.filter = SearchFilter(domain: "site3.example")
            let filtered = try t.index.search(asked)
            let narrowed = Self.brute(models, words: words, site: "site3.example", now: later)
            #expect(filtered.total == narrowed.total && Self.counts(filtered.facets, .contentType) == narrowed.types, "\(query) on site3")
            #expect(filtered.hits.allSatisfy { $0.item.webURL?.hasPrefix("https://site3.example/") == true })
        }
        // The page is what the search gives without facets.
        var plain = SearchRequest("lemon tart", limit: 10, now: later)
        let page = try t.index.search(plain).hits.map(\.item.uniqueIdentifier)
        plain.facets = [.domain]
        #expect(try t.index.search(plain).hits.map(\.item.uniqueIdentifier) == page)
    }

    /// Each shard counts its own matches exactly; added up they are the whole index's counts.
    @Test func shardsCountsAddUpToTheWholeIndexs() throws {
        let whole = try TemporaryIndex()
        let shards = try (0..<3).map { _ in try TemporaryIndex() }
        var all: [SearchableItem] = []
        for i in 0..<1500 {
            var entry = item("s\(i)", "harbour walk \(i)", web: "https://site\(i % 5).example/\(i)")
            entry.contentType = i % 2 == 0 ? "public.place" : "public.event"
            all.append(entry)
        }
        try whole.index.upsert(all)
        for (index, shard) in shards.enumerated() { try shard.index.upsert(all.enumerated().filter { $0.offset % 3 == index }.map(\.element)) }
        var request = SearchRequest("harbour", limit: 3)
        request.facets = [.contentType, .domain]
        let expected = try #require(try whole.index.search(request).facets)
        let merged = FacetCounts.merged(try shards.map { try #require(try $0.index.search(request).facets) })
        #expect(merged == expected)
        #expect(merged.exact && Self.counts(merged, .domain) == ["site0.example": 300, "site1.example": 300, "site2.example": 300,
                                                                   "site3.example": 300, "site4.example": 300])
    }
}
