import Markup
import Testing

@Suite struct AppLinksTests {
    func appLinks(_ tags: [(String, String)]) -> AppLinks? {
        AppLinks(properties: tags)
    }

    @Test func aRepeatedURLTagZipsIntoASecondTarget() throws {
        let links = try #require(appLinks([
            ("al:ios:url", "free://x"), ("al:ios:app_store_id", "1"), ("al:ios:app_name", "Free"),
            ("al:ios:url", "paid://x"), ("al:ios:app_store_id", "2"),
        ]))
        #expect(links.targets.map(\.url) == ["free://x", "paid://x"])
        #expect(links.targets.map(\.appStoreID) == ["1", "2"])
        #expect(links.targets.map(\.appName) == ["Free", nil])
    }

    @Test func aBareRootTagStartsANewApp() throws {
        let links = try #require(appLinks([
            ("al:ios", ""), ("al:ios:url", "a://1"), ("al:ios:app_name", "A"),
            ("al:ios", ""), ("al:ios:app_name", "B"), ("al:ios:url", "b://1"),
        ]))
        #expect(links.targets.map(\.appName) == ["A", "B"])
        #expect(links.targets.map(\.url) == ["a://1", "b://1"])
    }

    @Test func everyPlatform() throws {
        let links = try #require(appLinks([
            ("al:iphone:url", "i://1"), ("al:ipad:url", "p://1"), ("al:ios:url", "o://1"),
            ("al:android:url", "a://1"), ("al:android:package", "com.a"), ("al:android:class", "com.a.Main"),
            ("al:windows_phone:url", "w://1"), ("al:windows:url", "w8://1"), ("al:windows:app_id", "w8"),
            ("al:windows_universal:url", "uwp://1"), ("al:windows_universal:app_id", "uwp"), ("al:unknown:url", "u://1"),
        ]))
        #expect(links.targets.map(\.platform) == [.iphone, .ipad, .ios, .android, .windowsPhone, .windows, .windowsUniversal])
        #expect(links.iPhoneTargets.map(\.url) == ["i://1", "o://1"])
        #expect(links.iPadTargets.map(\.url) == ["p://1", "o://1"])
        #expect(links.androidTargets.first?.className == "com.a.Main")
        #expect(links.targets.first { $0.platform == .windowsUniversal }?.appID == "uwp")
    }

    @Test(arguments: [("false", false), ("FALSE", false), ("no", false), ("0", false), ("true", true), ("1", true), ("maybe", true)])
    func webFallback(_ value: String, _ allowed: Bool) throws {
        let links = try #require(appLinks([("al:ios:url", "x://1"), ("al:web:should_fallback", value)]))
        #expect(links.shouldFallbackToWeb == allowed)
    }

    @Test func onlyTheFirstWebObjectCounts() throws {
        let links = try #require(appLinks([
            ("al:web:url", "https://first.example/"), ("al:web", ""), ("al:web:url", "https://second.example/"),
            ("al:web:should_fallback", "false"),
        ]))
        #expect(links.webURL == "https://first.example/")
        #expect(links.shouldFallbackToWeb)
        #expect(links.targets.isEmpty)
    }

    @Test func propertiesAreCaseInsensitiveAndEmptyPagesHaveNone() {
        #expect(appLinks([("AL:IOS:URL", "x://1")])?.targets.first?.url == "x://1")
        #expect(appLinks([]) == nil)
        #expect(appLinks([("al:ios:url", "")]) == nil, "a target with nothing in it is no target")
    }
}

@Suite struct TwitterCardTests {
    @Test func appCardWithLenientIDsAndAliases() throws {
        let card = try #require(TwitterCard(properties: [
            ("twitter:card", "app"), ("twitter:site", "@shop"), ("twitter:app:id:iphone", "id81239204382"),
            ("twitter:app:url:iphone", "shop://x"), ("twitter:app:name:iphone", "Shop"), ("twitter:app:id:iphone", "999"),
            ("twitter:app:id:android", "com.shop"), ("twitter:app:id:googleplay", "com.shop.other"),
            ("twitter:title", "T"), ("twitter:image:src", "https://img.example/1.png"), ("twitter:app:country", "DE"),
        ]))
        #expect(card.card == "app")
        #expect(card.site == "@shop")
        #expect(card.apps.map(\.platform) == [.iphone, .googleplay])
        #expect(card.apps[0].id == "81239204382", "leading id stripped; the first value wins")
        #expect(card.apps[0].name == "Shop")
        #expect(card.apps[1].id == "com.shop", ":android counts as googleplay, first wins")
        #expect(card.image == "https://img.example/1.png")
        #expect(card.appCountry == "DE")
    }
}

@Suite struct AppAlternateTests {
    @Test(arguments: [
        ("android-app://com.example.android/http/example.com/info/", "android", "com.example.android", "http://example.com/info/"),
        ("android-app://com.example.android/example/gizmos", "android", "com.example.android", "example://gizmos"),
        ("android-app://com.example.android/example/gizmos?x=1#Intent;end", "android", "com.example.android", "example://gizmos?x=1"),
        ("ios-app://123456/example/gizmos", "ios", "123456", "example://gizmos"),
        ("IOS-APP://id123456/example/host/path?q=1", "ios", "123456", "example://host/path?q=1"),
    ])
    func parses(_ href: String, _ platform: String, _ appID: String, _ deepLink: String) throws {
        let alternate = try #require(AppAlternate(href: href))
        #expect(alternate.platform.rawValue == platform)
        #expect(alternate.appID == appID)
        #expect(alternate.deepLink == deepLink)
    }

    @Test(arguments: ["https://example.com/", "ios-app://notanumber/x/y", "android-app://", "ios-app:///x"])
    func rejects(_ href: String) {
        #expect(AppAlternate(href: href) == nil)
    }
}
