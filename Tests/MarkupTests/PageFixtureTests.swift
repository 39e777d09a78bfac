import JSON
import Markup
import Testing
import WebURL

/// Whole pages written to look like the sites Searchlight crawls, one per kind of app.
@Suite struct RecipePageTests {
    let page = Fixture.extract("pages/recipe.html", url: "https://recipes.example/recipes/lemon-tart")

    @Test func basics() {
        #expect(page.title == "Lemon tart — RecipeBox")
        #expect(page.metaDescription == "A sharp, silky lemon tart with a crisp shortcrust base. Ready in 90 minutes.")
        #expect(page.keywords == ["lemon tart", "dessert", "baking", "pastry"])
        #expect(page.language == "en-GB")
        #expect(page.canonicalURL?.string == "https://recipes.example/recipes/lemon-tart")
        #expect(page.headline == "Lemon tart")
        #expect(page.robots.maxSnippet == 160)
        #expect(page.robots.maxImagePreview == "large")
        #expect(!page.robots.noindex)
        #expect(page.hreflangAlternates.map(\.hreflang) == ["fr", "x-default"])
        let touch = page.icons.first { $0.isAppleTouchIcon }
        #expect(touch?.url.string == "https://recipes.example/icons/touch-180.png")
        #expect(touch?.largestSide == 180)
        #expect(page.icons.contains { $0.rel == "icon" && $0.sizes == "32x32" })
    }

    @Test func smartAppBannerKeepsCommasAndEqualsInValues() throws {
        let banner = try #require(page.smartAppBanner)
        #expect(banner.appStoreID == "1234567890")
        #expect(banner.appArgument == "recipebox://recipe/lemon-tart?tags=citrus,dessert,tart&ref=web")
        #expect(banner.affiliateData == "partnerId=42&siteID=abc=def")
    }

    @Test func appLinksAndTwitterCard() throws {
        let appLinks = try #require(page.appLinks)
        #expect(appLinks.targets.map(\.platform) == [.ios, .android])
        #expect(appLinks.targets[0].appStoreID == "1234567890")
        #expect(appLinks.targets[1].package == "com.recipebox.android")
        #expect(appLinks.webURL == "https://recipes.example/recipes/lemon-tart")
        #expect(appLinks.shouldFallbackToWeb)
        let card = try #require(page.twitterCard)
        #expect(card.card == "app")
        #expect(card.appCountry == "GB")
        #expect(card.apps.map(\.platform) == [.iphone, .googleplay])
        #expect(card.apps[1].id == "com.recipebox.android")
    }

    @Test func openGraphArraysAttachStructuredPropertiesToTheirRoot() throws {
        let og = try #require(page.openGraph)
        #expect(og.title == "Lemon tart", "the first og:title wins")
        #expect(og.images.count == 2)
        #expect(og.images[0].width == 1200)
        #expect(og.images[0].height == 630)
        #expect(og.images[0].alt == "A lemon tart on a blue plate")
        #expect(og.images[0].secureURL == nil)
        #expect(og.images[1].secureURL == "https://cdn.recipes.example/img/lemon-slice.jpg")
        #expect(og.images[1].type == "image/jpeg")
        #expect(og.localeAlternates == ["fr_FR"])
    }

    @Test func schemaFollowsMainEntityReferencesAcrossBlocks() throws {
        let schema = page.schema
        #expect(schema.types == ["Recipe"])
        #expect(schema.name == "Lemon tart")
        #expect(schema.images == ["https://recipes.example/img/lemon.jpg", "https://recipes.example/img/lemon-square.jpg"])
        let rating = try #require(schema.rating)
        #expect(rating.value == 4.8)
        #expect(rating.count == 1287)
        #expect(rating.best == 5)
        #expect(schema.telephone == "+44 20 7946 0000")
        #expect(schema.address?.formatted == "1 Citrus Lane, London, N1 9GU, GB")
        #expect(schema.interactions == [SchemaSummary.Interaction(type: "LikeAction", count: 5310)])
        let search = try #require(schema.searchAction)
        #expect(search.targets.first?.urlTemplate == "https://recipes.example/search?q={search_term_string}")
        #expect(search.queryInput == "required name=search_term_string")
        #expect(page.schemaObjects.count == 5, "four @graph members and the recipe")
    }

    @Test func outlinksAreResolvedFlaggedAndDeduplicated() {
        let byURL = Dictionary(page.outlinks.map { ($0.url.string, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byURL["https://partner.example/oven?utm_source=recipebox"]?.rel == [.sponsored, .nofollow])
        #expect(byURL["https://forum.example/t/lemon"]?.rel == .ugc)
        #expect(byURL["https://recipes.example/desserts"]?.text == "Desserts")
        #expect(page.outlinks.filter { $0.url.string == "https://recipes.example/desserts" }.count == 1)
        #expect(byURL["https://recipes.example/recipes/lemon-tart"]?.text == "method", "fragment dropped")
        #expect(byURL["https://recipes.example/recipes/lemon-meringue"]?.element == .area)
        #expect(byURL["https://recipes.example/recipes/lemon-tart?page=2"]?.element == .linkNext)
        #expect(!page.outlinks.contains { !$0.url.string.hasPrefix("http") })
    }

    @Test func bodyTextLeavesOutScriptsAndStyles() {
        #expect(page.bodyText.contains("Zest the lemons, whisk with sugar and eggs, and bake until just set."))
        #expect(!page.bodyText.contains("not a tag"))
        #expect(!page.bodyText.contains("color"))
    }

    @Test func unknownHTML5ElementsAreNotReportedAsErrors() {
        #expect(!page.warnings.contains { $0.message.contains("header invalid") })
    }
}

@Suite struct FriendProfilePageTests {
    let page = Fixture.extract("pages/friend-profile.html", url: "https://friends.example/people/42")

    @Test func baseHrefAppliesToEveryRelativeURL() {
        #expect(page.baseURL?.string == "https://friends.example/people/")
        let urls = page.outlinks.map(\.url.string)
        #expect(urls.contains("https://friends.example/people/43"))
        #expect(urls.contains("https://friends.example/groups/illustrators"))
        #expect(urls.contains("https://cdn.friends.example/app"))
        #expect(page.outlinks.first { $0.url.string.hasSuffix("illustrators") }?.rel == .nofollow)
        #expect(page.language == "en", "from <meta http-equiv=content-language>")
    }

    @Test func microdataFollowsItemrefAndTheValueRules() throws {
        let person = try #require(page.schemaObjects.first { $0.source == .microdata && $0.id != nil }).value
        #expect(person["@type"] == "https://schema.org/Person")
        #expect(person["@id"] == "https://friends.example/people/42")
        #expect(person["name"] == "Becky Lin")
        #expect(person["image"] == "https://friends.example/people/portraits/42.jpg", "img → src, resolved")
        #expect(person["url"] == "https://friends.example/people/42", "link → href, resolved")
        #expect(person["birthDate"] == "1990-04-01", "meta → content")
        #expect(person["foundingDate"] == "2019-06-01", "time without datetime → text")
        #expect(person["identifier"] == "42", "data → value")
        #expect(person["sameAs"] == ["https://social.example/@becky", "https://art.example/becky"])
        #expect(person["knows"]?["name"] == "Sam")
        #expect(person["knows"]?["nickname"] == "Sammy")
        #expect(person["knows"]?["alternateName"] == "Sammy", "one element, two property names")
        #expect(person["address"]?["addressLocality"] == "Wellington", "through itemref=contact")
        #expect(person["telephone"] == "+64 4 555 0142")
        #expect(person["description"] == "Draws portraits of friends.", "the itemref'd element itself is a property")
        #expect(page.schema.types == ["Person"])
        #expect(page.schema.address?.formatted == "7 Harbour Road, Wellington, NZ")
    }

    @Test func anElementReachedTwiceCountsOnce() throws {
        let loop = try #require(page.schemaObjects.first { $0.value["name"] == "Loop" })
        #expect(loop.value["name"] == "Loop", "counted once, not once per route")
    }

    @Test func appLinksStartANewAppAtEachBareRootTag() throws {
        let appLinks = try #require(page.appLinks)
        let ios = appLinks.targets.filter { $0.platform == .ios }
        #expect(ios.map(\.url) == ["friends://person/42", "friendspro://person/42"])
        #expect(ios.map(\.appStoreID) == ["987654321", "987654322"])
        #expect(appLinks.iPhoneTargets.map(\.url) == ["friends-iphone://person/42", "friends://person/42", "friendspro://person/42"])
        #expect(appLinks.iPadTargets.first?.url == "friends-ipad://person/42")
        #expect(appLinks.targets.first { $0.platform == .windowsPhone }?.appID == "a1b2c3")
        #expect(!appLinks.shouldFallbackToWeb, "al:web:should_fallback=False")
    }

    @Test func alternatesBecomeDeepLinks() {
        #expect(page.appAlternates.count == 3)
        #expect(page.appAlternates[0].platform == .ios)
        #expect(page.appAlternates[0].appID == "987654321")
        #expect(page.appAlternates[0].deepLink == "friends://person/42")
        #expect(page.appAlternates[1].appID == "com.example.friends")
        #expect(page.appAlternates[1].deepLink == "friends://person/42?src=web")
        #expect(page.appAlternates[2].deepLink == nil, "a package alone opens the app")
        #expect(!page.outlinks.contains { $0.url.string.contains("app:") })
    }
}

@Suite struct LiveStreamPageTests {
    let page = Fixture.extract("pages/live-stream-zh.html", url: "https://live.example/room/8848")

    @Test func chinesePageWithVideoAndPlatformActions() throws {
        #expect(page.title == "篮球直播：今晚八点 — 星火直播")
        #expect(page.language == "zh-CN")
        #expect(page.smartAppBanner?.appStoreID == "1600000001", "id prefix stripped")
        let card = try #require(page.twitterCard)
        #expect(card.apps.map(\.platform) == [.iphone, .ipad, .googleplay], ":android accepted as googleplay")
        #expect(card.apps[0].id == "1600000001")
        let og = try #require(page.openGraph)
        #expect(og.videos.first?.type == "application/x-mpegURL")
        #expect(og.videos.first?.width == 1920)
        #expect(og.images.count == 1, "a repeated og:image:url fills the same image")
        #expect(og.images.first?.width == 640)
        #expect(page.schema.types == ["VideoObject"])
        #expect(page.schema.mediaURL == "https://live.example/stream/8848.m3u8")
        #expect(page.schema.interactions.map(\.type) == ["WatchAction", "LikeAction"])
        #expect(page.schema.interactions.map(\.count) == [128000, 9527])
        #expect(page.schema.deepLinks.map(\.platform) == [.ios, .android])
        #expect(page.schema.deepLinks[1].url == "xinghuo://live/8848")
        #expect(page.schema.deepLinks[1].appID == "com.xinghuo.live")
        #expect(page.schema.actions.first?.targets.count == 3)
    }

    @Test func nonASCIIPathsArePercentEncoded() {
        let urls = page.outlinks.map(\.url.string)
        #expect(urls.contains("https://live.example/room/%E8%B6%B3%E7%90%83"))
        #expect(urls.contains("https://live.example/room/%E7%AF%AE%E7%90%83"))
    }
}

@Suite struct ShopPageTests {
    let page = Fixture.extract("pages/shop-product.html", url: "https://shop.example/p/trail-runner-3")

    @Test func sloppyJSONLDIsRecoveredWithWarnings() throws {
        #expect(page.schema.types == ["Product"])
        #expect(page.schema.offer?.price == "89.90")
        #expect(page.schema.offer?.currency == "EUR")
        #expect(page.schema.offer?.availability == "InStock")
        #expect(page.schema.rating?.value == 4.4)
        #expect(page.schema.rating?.count == 212)
        #expect(page.schema.images == ["https://shop.example/img/tr3.jpg"])
        #expect(page.schema.telephone == "+49 30 1234567", "the unterminated second block was closed")
        let repaired = page.warnings.filter { $0.code == .jsonLDRepaired }
        #expect(repaired.count == 7, "one warning per repair")
        #expect(Set(repaired.compactMap { $0.message.split(separator: ",").first }) == ["JSON-LD block 1", "JSON-LD block 2"])
        #expect(repaired.allSatisfy { $0.column != nil })
        #expect(repaired.first?.line == 13, "the // comment; the <!-- --> wrapper is blanked before parsing, not repaired")
        let invalid = try #require(page.warnings.first { $0.code == .jsonLDInvalid })
        #expect(invalid.message.contains("block 3"))
        #expect(invalid.line == 30)
    }

    @Test func lenientSmartAppBanner() throws {
        let banner = try #require(page.smartAppBanner)
        #expect(banner.appStoreID == "555000111")
        #expect(banner.appArgument == "peakshop://product/tr3")
        #expect(banner.appClipBundleID == "com.peakshop.app.Clip")
        #expect(banner.appClipDisplay == "card")
    }

    @Test func extractionKeepsTheCanonicalAsWritten() {
        #expect(page.canonicalURL?.string == "https://shop.example/p/trail-runner-3?utm_source=feed")
        #expect(page.outlinks.map(\.url.string) == ["https://shop.example/p/trail-runner-3/reviews", "https://shop.example/cart?add=TR3-42"])
    }
}

@Suite struct MessyPageTests {
    let page = Fixture.extract("pages/messy.html", url: "https://messy.example/dir/page")

    @Test func readsThroughBrokenHTML() {
        #expect(page.title == "Messy page", "whitespace collapsed; the <svg> title is not the page's")
        #expect(page.metaDescription == "First description")
        #expect(page.robots.noindex && page.robots.nofollow && page.robots.nosnippet)
        #expect(!page.robots.noarchive, "googlebot's tag is not ours")
        #expect(page.appLinks?.targets.first?.url == "messy://page", "al: with name= is accepted")
        #expect(page.twitterCard?.apps.first?.id == "424242", "twitter: with property= is accepted")
        #expect(page.schema.name == "Messy meetup")
        #expect(page.schema.description == "Line one</p><p>line two")
        #expect(page.warnings.contains { $0.code == .malformedHTML && $0.line != nil })
        #expect(page.bodyText.contains("Text & entities é ☺"))
        #expect(page.bodyText.contains("cell one\ncell two"), "a block a line")
    }

    @Test func sloppyHrefsAreCleanedAndNormalised() {
        let urls = page.outlinks.map(\.url.string)
        #expect(urls.contains("https://messy.example/unquoted?a=1&b=2"))
        #expect(urls.contains("https://messy.example/spaces%20around"))
        #expect(urls.contains("http://other.example/Up/~user"))
        #expect(urls.contains("https://messy.example/tabinhref"))
        #expect(urls.contains("https://messy.example/dir/page"), "an empty href is the page itself")
        #expect(page.outlinks.count == 5, "the anchor without href is not a link")
    }
}
