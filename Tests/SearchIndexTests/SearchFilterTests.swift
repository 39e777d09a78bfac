import Foundation
import Items
import JSON
import SearchIndex
import Testing

/// Searches scoped by owner, domain, domain identifier, content type and app platform, alone
/// and together, on the pruned and the exhaustive path alike.
@Suite struct SearchFilterTests {
    static func items() -> [SearchableItem] {
        var list = [
            item("web-1", "Lemon tart recipe", web: "https://recipes.example/lemon",
                 apps: [AppTarget(platform: .ios, appStoreID: "111", deepLink: "recipes://lemon")]),
            item("web-2", "Lemon tart video", web: "https://video.recipes.example/lemon",
                 apps: [AppTarget(platform: .android, package: "example.video", deepLink: "video://lemon")]),
            item("web-3", "Lemon tart shop", web: "https://notrecipes.example/lemon"),
            item("album-1", "Lemon tart photos", domain: "com.app.albums"),
            item("album-2", "Lemon tart photos 2024", domain: "com.app.albums.2024"),
            item("album-3", "Lemon tart photos elsewhere", domain: "com.app.albumsx"),
        ]
        list[0].contentType = "public.recipe"
        list[1].contentType = "public.movie"
        list[3].contentType = "public.image"
        list[4].contentType = "public.image"
        list[3].owner = "tenant-a"
        list[4].owner = "tenant-a"
        list[5].owner = "tenant-b"
        return list
    }

    static func ids(_ index: SearchIndex, _ filter: SearchFilter, retrieval: SearchIndex.Retrieval = .pruned) throws -> [String] {
        var request = SearchRequest("lemon tart", limit: 20)
        request.filter = filter
        return try index.search(request, retrieval: retrieval).hits.map(\.item.uniqueIdentifier).sorted()
    }

    /// "Only results my apps open" keeps the results a tap opens in an installed app (issue 56):
    /// an app a page names without a link to open (a banner's app-id alone) opens the web page,
    /// so its item is left out; a universal link to the item's page counts.
    @Test func installedOnlyKeepsWhatATapOpensInTheApp() throws {
        let t = try TemporaryIndex()
        var universal = AppTarget(platform: .ios, appStoreID: "111")
        universal.isUniversalLink = true
        try t.index.upsert([
            item("linked", "Lemon tart", web: "https://a.example/1", apps: [AppTarget(platform: .ios, appStoreID: "111", deepLink: "tarts://1")]),
            item("banner", "Lemon tart banner", web: "https://a.example/2", apps: [AppTarget(platform: .ios, appStoreID: "111")]),
            item("universal", "Lemon tart universal", web: "https://a.example/3", apps: [universal]),
        ])
        var request = SearchRequest("lemon tart", limit: 10, installed: ["111"])
        request.filter.restrict(toAppsIn: ["111"], platform: .ios)
        let hits = try t.index.search(request).hits
        #expect(hits.map(\.item.uniqueIdentifier).sorted() == ["linked", "universal"])
        #expect(hits.allSatisfy { $0.action?.kind == .openApp })
    }

    @Test func eachFilterAndTheirCombination() throws {
        let t = try TemporaryIndex()
        try t.index.upsert(Self.items())
        let cases: [(SearchFilter, [String], Comment)] = [
            (SearchFilter(), ["album-1", "album-2", "album-3", "web-1", "web-2", "web-3"], "no filter"),
            (SearchFilter(domain: "recipes.example"), ["web-1", "web-2"], "the domain and its subdomains, not notrecipes.example"),
            (SearchFilter(domain: "video.recipes.example"), ["web-2"], "a subdomain alone"),
            (SearchFilter(domainIdentifier: "com.app.albums"), ["album-1", "album-2"], "the identifier and those under it, not com.app.albumsx"),
            (SearchFilter(contentType: "public.image"), ["album-1", "album-2"], "a content type"),
            (SearchFilter(owner: "tenant-a"), ["album-1", "album-2"], "one owner's items"),
            (SearchFilter(owner: ""), ["web-1", "web-2", "web-3"], "items nobody owns"),
            (SearchFilter(hasApp: .ios), ["web-1"], "an iOS app opens it"),
            (SearchFilter(hasApp: .android), ["web-2"], "an Android app opens it"),
            (SearchFilter(owner: "tenant-a", domainIdentifier: "com.app.albums.2024", contentType: "public.image"), ["album-2"], "combined"),
            (SearchFilter(domain: "recipes.example", contentType: "public.image"), [], "combined, nothing passes"),
            (SearchFilter().with { $0.restrict(toAppsIn: ["111"], platform: .ios) }, ["web-1"], "an installed app opens it"),
            (SearchFilter().with { $0.restrict(toAppsIn: ["example.video", "x"], platform: .android) }, ["web-2"], "by package"),
            (SearchFilter().with { $0.restrict(toAppsIn: ["111"], platform: .android) }, [], "that app is not an Android one"),
            (SearchFilter().with { $0.restrict(toAppsIn: [], platform: .ios) }, [], "no app installed: nothing an app opens"),
        ]
        for (filter, expected, comment) in cases {
            #expect(try Self.ids(t.index, filter) == expected, comment)
            #expect(try Self.ids(t.index, filter, retrieval: .exhaustive) == expected, comment)
        }
    }

    /// The cached rows of a filter take in items written after they were read, and a
    /// replaced item is judged by its new version.
    @Test func itemsWrittenLaterAreFilteredToo() throws {
        let t = try TemporaryIndex()
        try t.index.upsert(Self.items())
        let images = SearchFilter(contentType: "public.image")
        #expect(try Self.ids(t.index, images) == ["album-1", "album-2"])
        var later = item("album-4", "Lemon tart photos 2025", domain: "com.app.albums.2025")
        later.contentType = "public.image"
        var changed = Self.items()[0]
        changed.contentType = "public.image"
        try t.index.upsert([later, changed])
        #expect(try Self.ids(t.index, images) == ["album-1", "album-2", "album-4", "web-1"])
        try t.index.upsert([Self.items()[3].with { $0.contentType = "public.movie" }])
        #expect(try Self.ids(t.index, images) == ["album-2", "album-4", "web-1"])
    }

    /// The sets start at the oldest item's rowid: items whose rows come after many deleted
    /// ones are filtered and counted the same.
    @Test func rowsAfterDeletedOnesAreFilteredAndCounted() throws {
        let t = try TemporaryIndex()
        try t.index.upsert((0..<200).map { item("old-\($0)", "lemon tart \($0)") })
        #expect(try t.index.delete(identifiers: (0..<200).map { "old-\($0)" }) == 200)
        try t.index.upsert(Self.items())
        #expect(try Self.ids(t.index, SearchFilter(contentType: "public.image")) == ["album-1", "album-2"])
        var request = SearchRequest("lemon tart", limit: 20)
        request.facets = [.contentType]
        #expect(try t.index.search(request).facets?.counts[.contentType]?.map(\.count) == [2, 1, 1])
    }

    /// A filter that leaves fewer results than the page still finds every one of them past
    /// the pruning: many better matches that fail do not crowd out the few that pass.
    @Test func aRareFilterFindsItsFewAmongManyBetterMatches() throws {
        let t = try TemporaryIndex()
        var list = (0..<300).map { item("noise-\($0)", "lemon tart lemon tart \($0)", body: "lemon tart lemon") }
        var rare = item("rare", "a tart with some lemon", web: "https://rare.example/tart")
        rare.contentType = "public.rare"
        list.append(rare)
        try t.index.upsert(list)
        #expect(try Self.ids(t.index, SearchFilter(contentType: "public.rare")) == ["rare"])
        #expect(try Self.ids(t.index, SearchFilter(domain: "rare.example")) == ["rare"])
    }

    /// Over several segments and many windows, a filtered search's page is the unfiltered
    /// ranking's passing items, in order: the masks line up with every window's ordinals.
    @Test func aFilteredPageIsTheRankingsPassingItems() throws {
        let t = try TemporaryIndex()
        let words = ["lemon", "tart", "curd", "pastry", "butter", "sugar", "zest", "cream"]
        for batch in 0..<3 {
            try t.index.upsert((0..<1500).map { n -> SearchableItem in
                let i = batch * 1500 + n
                var item = item("i\(i)", "\(words[i % 8]) \(words[(i / 8) % 8]) \(words[(i / 64) % 8])",
                                body: (0..<(i % 13 + 3)).map { words[($0 * i) % 8] }.joined(separator: " "))
                item.contentType = i % 7 == 3 ? "public.seventh" : "public.other"
                return item
            })
        }
        for query in ["lemon tart", "curd", "butter sugar zest", "cream pastry lemon"] {
            // Every passing item of the first stage, best first (relevance, then the index's own order).
            let everything = try t.index.search(SearchRequest(query, limit: 1000), retrieval: .exhaustive).hits
            let passing = everything.filter { $0.item.contentType == "public.seventh" }.map(\.relevance).sorted(by: >)
            var filtered = SearchRequest(query, limit: 20)
            filtered.filter = SearchFilter(contentType: "public.seventh")
            let pruned = try t.index.search(filtered).hits
            let exhaustive = try t.index.search(filtered, retrieval: .exhaustive).hits
            #expect(pruned.map(\.item.uniqueIdentifier) == exhaustive.map(\.item.uniqueIdentifier), "\(query)")
            #expect(pruned.allSatisfy { $0.item.contentType == "public.seventh" })
            #expect(pruned.map(\.relevance).sorted(by: >) == Array(passing.prefix(20)), "the best 20 passing, by first-stage relevance: \(query)")
        }
    }

    @Test func badFiltersAreRefused() throws {
        let t = try TemporaryIndex()
        for filter in [SearchFilter(domain: "Bad Domain"), SearchFilter(domain: ".example"), SearchFilter(contentType: ""),
                       SearchFilter(domainIdentifier: String(repeating: "x", count: 300)), SearchFilter(contentType: "a\u{1B}b")] {
            var request = SearchRequest("lemon")
            request.filter = filter
            #expect(throws: SearchIndexError.self) { try t.index.search(request) }
        }
        #expect(throws: SearchIndexError.self) { try SearchFilter(json: ["hasApp": "windows"]) }
        #expect(try SearchFilter(json: SearchFilter(domain: "a.example", hasApp: .ios).json) == SearchFilter(domain: "a.example", hasApp: .ios))
    }
}

extension SearchableItem {
    func with(_ change: (inout SearchableItem) -> Void) -> SearchableItem {
        var copy = self
        change(&copy)
        return copy
    }
}

extension SearchFilter {
    func with(_ change: (inout SearchFilter) -> Void) -> SearchFilter {
        var copy = self
        change(&copy)
        return copy
    }
}

/// Facet counts over a search's matches: exact while the matches are fewer than the counted
/// depth, marked estimated past it, and the page the same as without them.
@Suite struct FacetTests {
    @Test func countsByContentTypeAndSite() throws {
        let t = try TemporaryIndex()
        var list: [SearchableItem] = []
        for i in 0..<30 {
            var entry = item("i\(i)", "lemon tart \(i)", web: "https://site\(i % 3).example/\(i)")
            entry.contentType = i % 5 == 0 ? "public.image" : "public.recipe"
            list.append(entry)
        }
        list.append(item("other", "chocolate cake", web: "https://site0.example/cake"))
        try t.index.upsert(list)
        var request = SearchRequest("lemon tart", limit: 5)
        let plain = try t.index.search(request)
        #expect(plain.facets == nil)
        request.facets = [.contentType, .domain]
        let faceted = try t.index.search(request)
        #expect(faceted.hits.map(\.item.uniqueIdentifier) == plain.hits.map(\.item.uniqueIdentifier), "the page does not change")
        let facets = try #require(faceted.facets)
        #expect(facets.exact)
        #expect(facets.counts[.contentType]?.map(\.value) == ["public.recipe", "public.image"])
        #expect(facets.counts[.contentType]?.map(\.count) == [24, 6])
        #expect(facets.counts[.domain]?.map(\.count) == [10, 10, 10], "the cake on site0 does not match")
        #expect(facets.counts[.domain]?.map(\.value) == ["site0.example", "site1.example", "site2.example"])
        // Filters narrow the counts too.
        request.filter = SearchFilter(domain: "site1.example")
        #expect(try t.index.search(request).facets?.counts[.domain]?.map(\.value) == ["site1.example"])
        // As JSON and back, as a client or a router reads them.
        let json = faceted.json
        #expect(try SearchResponse(json: JSONParser.parse(JSONWriter.string(json))).facets == facets)
        #expect(FacetCounts.merged([facets, facets]).counts[.contentType]?.map(\.count) == [48, 12])
        // Items written after the counts were first taken are counted too, by their new version.
        var moved = list[1]
        moved.webURL = "https://site9.example/1"
        try t.index.upsert([moved])
        request.filter = SearchFilter()
        #expect(try t.index.search(request).facets?.counts[.domain]?.first { $0.value == "site9.example" }?.count == 1)
        #expect(try t.index.search(request).facets?.counts[.domain]?.first { $0.value == "site1.example" }?.count == 9)
    }
}
