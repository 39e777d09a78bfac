import Foundation
import Items
import SearchIndex
import Testing

@Suite struct RankingTests {
    @Test func titleOutranksKeywordsOutranksDescriptionOutranksBody() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([
            item("body", "Plain", description: "nothing", body: "violin"),
            item("description", "Plain", description: "violin"),
            item("keywords", "Plain", keywords: ["violin"]),
            item("title", "Violin"),
        ])
        #expect(try t.ids("violin") == ["title", "keywords", "description", "body"])
    }

    @Test func ratingEngagementAndFreshnessBreakNearTies() throws {
        let t = try TemporaryIndex()
        let now = Date()
        var rated = item("rated", "Guitar lessons", updated: now)
        rated.rating = 4.9
        rated.ratingCount = 2000
        var poor = item("poor", "Guitar lessons", updated: now)
        poor.rating = 1.2
        poor.ratingCount = 2000
        try t.index.upsert([poor, rated])
        #expect(try t.ids("guitar", now: now) == ["rated", "poor"])

        try t.index.recordEngagement(ItemKey(owner: nil, identifier: "poor"), impressions: 100, clicks: 60)
        try t.index.recordEngagement(ItemKey(owner: nil, identifier: "rated"), impressions: 100, clicks: 0)
        #expect(try t.ids("guitar", now: now) == ["poor", "rated"], "clicks over impressions move results")

        let u = try TemporaryIndex()
        try u.index.upsert([item("stale", "Piano", updated: now.addingTimeInterval(-400 * 86_400)), item("fresh", "Piano", updated: now)])
        #expect(try u.ids("piano", now: now) == ["fresh", "stale"])
    }

    @Test func keywordStuffingIsDemoted() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([
            item("honest", "Best pizza in town", description: "Wood-fired pizza since 1987"),
            item("stuffed", "Pizza pizza pizza pizza cheap pizza", keywords: (1...40).map { "pizza \($0)" }),
        ])
        #expect(try t.ids("pizza") == ["honest", "stuffed"])
        #expect(Ranking.quality(of: item("x", "Pizza pizza pizza pizza")) == 0.5)
        // A long title of plain prose repeats its function words; that is not stuffing.
        #expect(Ranking.quality(of: item("z", "The role of the librarian in his field and the function of the public library")) == 1)
        #expect(Ranking.quality(of: item("w", "The catalogue of the future and the future of the catalogue")) == 0.5)
        #expect(Ranking.quality(of: item("y", "Pizza", body: "A pizza oven, fired with oak, bakes the crust in ninety seconds.")) == 1)
    }

    @Test func tiesAreDeterministic() throws {
        let t = try TemporaryIndex()
        let now = Date()
        try t.index.upsert(["c", "a", "b"].map { item($0, "Same title", updated: now) }, now: now)
        // Equal scores: by order key, whatever order the items came in.
        let expected = ["a", "b", "c"].sorted { ItemKey(owner: nil, identifier: $0).orderKey < ItemKey(owner: nil, identifier: $1).orderKey }
        #expect(try t.ids("same", now: now) == expected)
    }

    @Test func newItemsAreNotPunished() {
        let now = Date()
        let fresh = Ranking.score(bm25: -10, quality: 1, rating: nil, ratingScale: 5, ratingCount: nil, impressions: 0, clicks: 0, updated: now, now: now)
        let ignored = Ranking.score(bm25: -10, quality: 1, rating: nil, ratingScale: 5, ratingCount: nil, impressions: 1000, clicks: 0, updated: now, now: now)
        let liked = Ranking.score(bm25: -10, quality: 1, rating: nil, ratingScale: 5, ratingCount: nil, impressions: 1000, clicks: 500, updated: now, now: now)
        #expect(ignored < fresh)
        #expect(fresh < liked)
        #expect(abs(fresh - 11) < 0.0001, "no rating, no engagement, brand new: relevance × freshness 1.1")
    }
}

@Suite struct TapActionTests {
    let iosApp = AppTarget(platform: .ios, appStoreID: "111", name: "Recipes", deepLink: "recipes://tart", evidence: .smartAppBanner)
    let androidApp = AppTarget(platform: .android, package: "com.recipes", deepLink: "recipes://tart", evidence: .appLinks)

    func action(_ item: SearchableItem, _ platform: AppTarget.Platform, _ installed: Set<String> = []) -> TapAction? {
        TapAction.resolve(for: item, platform: platform, installed: installed)
    }

    @Test func theMatrix() {
        let web = "https://recipes.example/tart"
        let page = item("p", "Tart", web: web, apps: [iosApp, androidApp])
        #expect(action(page, .ios, ["111"]) == TapAction(kind: .openApp, url: "recipes://tart", app: iosApp))
        #expect(action(page, .ios) == TapAction(kind: .openWeb, url: web))
        #expect(action(page, .ios, ["com.recipes"])?.kind == .openWeb, "the Android app does not count on iOS")
        #expect(action(page, .android, ["com.recipes"]) == TapAction(kind: .openApp, url: "recipes://tart", app: androidApp))
        #expect(action(page, .android) == TapAction(kind: .openWeb, url: web))

        var noFallback = page
        noFallback.allowsWebFallback = false
        #expect(action(noFallback, .ios) == TapAction(kind: .installApp, url: "https://apps.apple.com/app/id111", app: iosApp))
        #expect(action(noFallback, .android)?.url == "https://play.google.com/store/apps/details?id=com.recipes")
        #expect(action(noFallback, .ios, ["111"])?.kind == .openApp)

        let appOnly = item("a", "Pushed", apps: [iosApp])
        #expect(action(appOnly, .ios)?.kind == .installApp, "no web URL: the store")
        #expect(action(appOnly, .android) == nil, "nothing can open it on Android")

        var universal = iosApp
        universal.isUniversalLink = true
        universal.bundleID = "com.recipes.ios"
        let verified = item("u", "Tart", web: web, apps: [universal])
        #expect(action(verified, .ios, ["com.recipes.ios"]) == TapAction(kind: .openApp, url: web, app: universal),
                "a verified universal link opens as its https URL")
    }

    @Test func theSearchResponseCarriesTheActionForThePlatform() throws {
        let t = try TemporaryIndex()
        try t.index.upsert([item("p", "Tart recipe", web: "https://recipes.example/tart", apps: [iosApp, androidApp])])
        let ios = try t.index.search(SearchRequest("tart", installed: ["111"])).hits.first?.action
        #expect(ios?.kind == .openApp)
        let android = try t.index.search(SearchRequest("tart", platform: .android)).hits.first?.action
        #expect(android?.kind == .openWeb)
    }
}
