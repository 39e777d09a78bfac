import Foundation
import Items
import JSON
import Markup
import PageItems
import SearchIndex
import Testing
import TextUtilities
import WebRules
import WebURL

@Suite struct ItemBuilderTests {
    @Test func aRecipePage() throws {
        let markup = Pages.markup("recipe.html", url: "https://recipes.example/recipes/lemon-tart?utm=x#top")
        let now = Date()
        let item = try ItemBuilder().item(for: markup, url: WebURL("https://recipes.example/recipes/lemon-tart?utm=x#top")!, now: now)
        #expect(item.uniqueIdentifier == "https://recipes.example/recipes/lemon-tart", "the canonical URL")
        #expect(item.webURL == item.uniqueIdentifier)
        #expect(item.domainIdentifier == "example.recipes")
        #expect(item.title == "Lemon tart", "schema.org name first")
        #expect(item.contentDescription == "A sharp, silky lemon tart.")
        #expect(item.thumbnailURL == "https://recipes.example/img/lemon.jpg")
        #expect(item.contentType == "Recipe")
        #expect(item.rating == 4.8)
        #expect(item.ratingCount == 1287)
        #expect(item.telephone == "+44 20 7946 0000")
        #expect(item.keywords == ["lemon tart", "dessert", "baking", "pastry"])
        #expect(item.source == .crawled)
        #expect(item.expirationDate == now.addingTimeInterval(30 * 86_400))
        let ios = try #require(item.apps.first { $0.platform == .ios })
        #expect(ios.appStoreID == "1234567890")
        #expect(ios.deepLink == "recipebox://recipe/lemon-tart?tags=citrus,dessert,tart&ref=web", "the banner's app-argument wins")
        #expect(ios.name == "RecipeBox", "filled in from App Links")
        #expect(ios.evidence == .smartAppBanner)
        let android = try #require(item.apps.first { $0.platform == .android })
        #expect(android.package == "com.recipebox.android")
        #expect(item.apps.count == 2, "one app per platform, merged from five families")
        #expect(item.allowsWebFallback)
    }

    @Test func hostileRatingsAndScriptDeepLinksFromAPageAreDropped() throws {
        let html = """
            <title>Bad numbers</title>
            <meta name="apple-itunes-app" content="app-id=123456789, app-argument=javascript:alert(document.cookie)">
            <meta property="al:android:url" content="data:text/html,<script>alert(1)</script>">
            <meta property="al:android:package" content="com.bad.app">
            <script type="application/ld+json">
            {"@type": "Product", "name": "Bad numbers",
             "aggregateRating": {"ratingValue": 4, "bestRating": -5, "ratingCount": -1e19}}
            </script>
            """
        let url = WebURL("https://shop.example/bad")!
        let item = try ItemBuilder().item(for: MarkupExtractor().extract(Array(html.utf8), url: url), url: url)
        #expect(item.ratingScale == 5, "a scale of -5 is no scale")
        #expect(item.rating == 4)
        #expect(item.ratingCount == nil, "a negative count is dropped")
        let score = Ranking.score(bm25: -3, quality: 1, rating: item.rating, ratingScale: item.ratingScale, ratingCount: item.ratingCount,
                                  impressions: 0, clicks: 0, updated: Date(), now: Date())
        #expect(score.isFinite)
        #expect(item.apps.first { $0.platform == .ios }?.appStoreID == "123456789")
        #expect(item.apps.allSatisfy { $0.deepLink == nil }, "a result's button never runs script: \(item.apps)")
        #expect(Ranking.score(bm25: -3, quality: 1, rating: 3, ratingScale: -1, ratingCount: -5, impressions: -9, clicks: 7,
                              updated: Date(), now: Date()).isFinite, "the ranking itself cannot make a NaN")
    }

    @Test func aProfileWithTwoIOSAppsAndNoWebFallback() throws {
        let markup = Pages.markup("friend-profile.html", url: "https://friends.example/people/42")
        let item = try ItemBuilder().item(for: markup, url: WebURL("https://friends.example/people/42")!)
        #expect(item.title == "Becky Lin")
        #expect(!item.allowsWebFallback)
        let ios = item.apps.filter { $0.platform == .ios }
        #expect(ios.map(\.appStoreID) == ["987654321", "987654322"])
        #expect(ios.first?.deepLink == "friends-iphone://person/42", "iPhone targets come before iOS ones")
        #expect(item.apps.first { $0.platform == .android }?.deepLink == "friends://person/42?src=web")
        #expect(item.thumbnailURL == "https://friends.example/people/portraits/42.jpg")
    }

    @Test func universalLinksMarkTheIOSApp() throws {
        let markup = Pages.markup("recipe.html", url: "https://recipes.example/recipes/lemon-tart")
        let url = WebURL("https://recipes.example/recipes/lemon-tart")!
        let association = AppSiteAssociation(parsing: Array(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.recipebox.ios"], "components": [{"/": "*"}]}]}}"#.utf8))
        let item = try ItemBuilder().item(for: markup, url: url, associations: .init(apple: association))
        let ios = try #require(item.apps.first { $0.platform == .ios })
        #expect(ios.isUniversalLink)
        #expect(ios.bundleID == "com.recipebox.ios")
        #expect(ios.evidence == .universalLink)
        let other = AppSiteAssociation(parsing: Array(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.other"], "paths": ["*"]}]}}"#.utf8))
        let bare = try ItemBuilder().item(for: MarkupExtractor().extract(Array("<title>x</title>".utf8), url: url), url: url,
                                      associations: .init(apple: other))
        #expect(bare.apps == [AppTarget(platform: .ios, bundleID: "com.other", isUniversalLink: true, evidence: .universalLink)])
    }

    @Test func aCanonicalOnAnotherSiteIsIgnored() throws {
        let url = WebURL("https://mirror.example/copy")!
        let markup = MarkupExtractor().extract(Array("<link rel=canonical href='https://origin.example/page'><title>t</title>".utf8), url: url)
        #expect(try ItemBuilder().item(for: markup, url: url).uniqueIdentifier == "https://mirror.example/copy")
        let www = MarkupExtractor().extract(Array("<link rel=canonical href='https://www.mirror.example/copy'>".utf8), url: url)
        #expect(try ItemBuilder().item(for: www, url: url).uniqueIdentifier == "https://www.mirror.example/copy")
    }

    /// The item contract is not optional: a page whose item breaks a rule even cleaned (an
    /// identifier past the URL limit) is refused, never indexed unchecked.
    @Test func aPageWhoseItemBreaksTheContractIsRefused() throws {
        let url = WebURL("https://x.example/" + String(repeating: "a", count: SearchableItem.Limits.urlBytes))!
        #expect(throws: SearchableItem.Problem.self) {
            try ItemBuilder().item(for: MarkupExtractor().extract(Array("<title>Long</title>".utf8), url: url), url: url)
        }
    }

    @Test func titleAndThumbnailFallBackThroughTheFamilies() throws {
        let url = WebURL("https://x.example/a")!
        func build(_ html: String) throws -> SearchableItem {
            try ItemBuilder().item(for: MarkupExtractor().extract(Array(html.utf8), url: url), url: url).item
        }
        #expect(try build("<title>T</title><meta name=twitter:title content=Tw><meta property=og:title content=Og>").title == "Og")
        #expect(try build("<title>T</title><meta name=twitter:title content=Tw>").title == "Tw")
        #expect(try build("<h1>Heading</h1>").title == "Heading")
        #expect(try build("<p>no title at all</p>").title == "https://x.example/a")
        #expect(try build("<link rel=apple-touch-icon href=/a.png sizes=57x57><link rel=apple-touch-icon href=/b.png sizes=180x180>").thumbnailURL
                == "https://x.example/b.png")
        #expect(try build("<meta property=og:image content=/og.png><link rel=apple-touch-icon href=/a.png>").thumbnailURL == "https://x.example/og.png")
        #expect(try build("<p>Only a paragraph of body text here.</p>").contentDescription == "Only a paragraph of body text here.")
    }

    /// A page's schema.org place becomes its item's place, found by a search near it.
    @Test func aPagesGeoIsItsItemsPlace() throws {
        let url = WebURL("https://cafe.example/chez-a")!
        let html = """
            <title>Chez A</title><script type="application/ld+json">{"@type": "Restaurant", "name": "Chez A",
            "geo": {"@type": "GeoCoordinates", "latitude": 48.8606, "longitude": 2.3376}}</script>
            """
        let item = try ItemBuilder().item(for: MarkupExtractor().extract(Array(html.utf8), url: url), url: url)
        #expect(item.location == GeoPoint(latitude: 48.8606, longitude: 2.3376))
        #expect(try ItemBuilder().item(for: MarkupExtractor().extract(Array("<title>No place</title>".utf8), url: url), url: url).location == nil)
    }

    /// Issue 60: a long article's item holds it whole, up to the crawled body's limit.
    @Test func aLongArticlesItemHoldsItWhole() throws {
        let url = WebURL("https://wiki.example/islands")!
        let paragraphs = (0..<2_000).map { "<p>Paragraph \($0) of a long article about the islands, their people and their history.</p>" }.joined()
        let html = "<title>Islands</title><article>\(paragraphs)<p>The closing paragraph names the sources.</p></article>"
        let item = try ItemBuilder().item(for: MarkupExtractor().extract(Array(html.utf8), url: url), url: url).item
        #expect(item.bodyText.utf8.count > 128 * 1024 && item.bodyText.hasSuffix("The closing paragraph names the sources."))
        let huge = "<title>Huge</title><article>" + String(repeating: paragraphs, count: 3) + "</article>"
        let cut = try ItemBuilder().item(for: MarkupExtractor().extract(Array(huge.utf8), url: url), url: url).item
        #expect(cut.bodyText.utf8.count <= SearchableItem.crawledTextBytes)
    }
}

@Suite struct PushedItemTests {
    @Test func readsTheDesignFormat() throws {
        let json = try JSONParser.parse("""
            {"uniqueIdentifier": "person-42", "domainIdentifier": "com.example.staff.people", "title": "Becky",
             "contentDescription": "…", "keywords": ["friend"], "thumbnailURL": "https://example.com/img/42.png",
             "webURL": "https://example.com/people/42", "expirationDate": "2026-12-31T00:00:00Z",
             "apps": [{"platform": "ios", "appStoreId": "1234567890", "deepLink": "friends://person/42"}]}
            """)
        let item = try SearchableItem.pushed(json)
        #expect(item.uniqueIdentifier == "person-42")
        #expect(item.expirationDate == Date(timeIntervalSince1970: ISO8601.seconds(from: "2026-12-31T00:00:00Z")!))
        #expect(item.apps.first?.appStoreID == "1234567890")
        #expect(item.source == .pushed)
        let now = Date()
        let defaulted = try SearchableItem.pushed(["uniqueIdentifier": "x", "title": "X"], now: now)
        #expect(defaulted.expirationDate == now.addingTimeInterval(30 * 86_400), "a month by default")
    }

    @Test(arguments: [
        (#"{"title": "no id"}"#, "uniqueIdentifier"),
        (#"{"uniqueIdentifier": 42, "title": "x"}"#, "uniqueIdentifier"),
        (#"{"uniqueIdentifier": "a", "title": ""}"#, "title"),
        (#"{"uniqueIdentifier": "a", "title": "x", "colour": "red"}"#, "colour: unknown field"),
        (#"{"uniqueIdentifier": "a", "title": "x", "webURL": "ftp://x"}"#, "webURL"),
        (#"{"uniqueIdentifier": "a", "title": "x", "keywords": "one"}"#, "keywords"),
        (#"{"uniqueIdentifier": "a", "title": "x", "keywords": [1]}"#, "keywords[0]"),
        (#"{"uniqueIdentifier": "a", "title": "x", "expirationDate": "tomorrow"}"#, "expirationDate"),
        (#"{"uniqueIdentifier": "a", "title": "x", "apps": [{"platform": "windows"}]}"#, "apps[0].platform"),
        (#"{"uniqueIdentifier": "a", "title": "x", "apps": [{"platform": "ios"}]}"#, "apps[0]"),
        (#"{"uniqueIdentifier": "a", "title": "x", "rating": "high"}"#, "rating"),
        (#"["not", "an", "object"]"#, "expected an object"),
        // The contract's rules, given at the member's path.
        (#"{"uniqueIdentifier": "a", "title": "   "}"#, "item.title: must not be empty"),
        (#"{"uniqueIdentifier": "a", "title": "x", "rating": 7}"#, "item.rating"),
        (#"{"uniqueIdentifier": "a", "title": "x", "ratingScale": 0}"#, "item.ratingScale"),
        (#"{"uniqueIdentifier": "a", "title": "x", "language": "not a tag"}"#, "item.language"),
        (#"{"uniqueIdentifier": "a", "title": "x", "latitude": 91, "longitude": 0}"#, "item.latitude"),
        (#"{"uniqueIdentifier": "a", "title": "x", "latitude": 45}"#, "item.longitude: latitude and longitude go together"),
        (#"{"uniqueIdentifier": "a", "title": "x", "apps": [{"platform": "ios", "deepLink": "javascript:alert(1)"}]}"#, "item.apps[0].deepLink"),
        (#"{"uniqueIdentifier": "a", "title": "x", "apps": [{"platform": "android", "package": "not a package"}]}"#, "item.apps[0].package"),
        (#"{"uniqueIdentifier": "a", "title": "x", "apps": [{"platform": "ios", "bundleId": "b", "name": "\u0007"}]}"#, "item.apps[0].name"),
        (#"{"uniqueIdentifier": "a", "title": "x", "keywords": ["\u0001"]}"#, "item.keywords[0]"),
    ])
    func rejectsWithThePathOfTheProblem(_ text: String, _ mentioned: String) throws {
        let error = #expect(throws: FieldError.self) { try SearchableItem.pushed(try JSONParser.parse(text)) }
        #expect(error?.description.contains(mentioned) == true, "\(error?.description ?? "")")
    }

    /// The rule every source shares: a count of ratings without the rating says nothing.
    @Test func aRatingCountWithoutItsRatingIsLeftOut() throws {
        let pushed = try SearchableItem.pushed(["uniqueIdentifier": "a", "title": "x", "ratingCount": 12])
        #expect(pushed.ratingCount == nil)
        let rated = try SearchableItem.pushed(["uniqueIdentifier": "a", "title": "x", "rating": 4, "ratingCount": 12])
        #expect(rated.ratingCount == 12)
    }
}
