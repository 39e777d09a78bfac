import Markup
import Testing

@Suite struct SmartAppBannerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var content: String
        var appStoreID: String?
        var argument: String?
        var affiliate: String? = nil
        var clip: String? = nil
        var display: String? = nil
        var testDescription: String { content }
    }

    @Test(arguments: [
        Case(content: "app-id=123456789", appStoreID: "123456789", argument: nil),
        Case(content: "app-id=123, app-argument=https://x.example/a?b=1,c=2", appStoreID: "123", argument: "https://x.example/a?b=1,c=2"),
        Case(content: "app-argument=myapp://item?ids=1,2,3, app-id=9", appStoreID: "9", argument: "myapp://item?ids=1,2,3"),
        Case(content: "app-id= 1046183734 ,affiliate-data=partnerId=42&siteID=abc", appStoreID: "1046183734", argument: nil,
             affiliate: "partnerId=42&siteID=abc"),
        Case(content: "affiliate-data=partnerId=42&siteID=abcdef123456 app-argument=http://listings/123", appStoreID: nil,
             argument: "http://listings/123", affiliate: "partnerId=42&siteID=abcdef123456"),
        Case(content: "app-clip-bundle-id=com.zk.Clip, app-id=6738957441 app-clip-display=card", appStoreID: "6738957441",
             argument: nil, clip: "com.zk.Clip", display: "card"),
        Case(content: "  APP-ID = id333903271 ,  app-argument = myapp://x  ", appStoreID: "333903271", argument: "myapp://x"),
        Case(content: "app-id=123, app-id=456", appStoreID: "123", argument: nil),
        Case(content: "app-id=not-a-number", appStoreID: nil, argument: nil),
        Case(content: "app-argument=myapp://search?q=a=b&c=app-id=1", appStoreID: nil, argument: "myapp://search?q=a=b&c=app-id=1"),
        Case(content: "", appStoreID: nil, argument: nil),
        // Found by fuzzing: a bare `=` or `=value` before or between pairs used to trap.
        Case(content: "=, app-id=12", appStoreID: "12", argument: nil),
        Case(content: "app-id=12, =x, =", appStoreID: "12", argument: nil),
        Case(content: "=", appStoreID: nil, argument: nil),
    ])
    func tokenises(_ c: Case) {
        let banner = SmartAppBanner(content: c.content)
        #expect(banner.appStoreID == c.appStoreID)
        #expect(banner.appArgument == c.argument)
        #expect(banner.affiliateData == c.affiliate)
        #expect(banner.appClipBundleID == c.clip)
        #expect(banner.appClipDisplay == c.display)
    }

    @Test func keepsUnknownParametersAndTheRawContent() {
        let banner = SmartAppBanner(content: "foo=bar, app-id=1, baz")
        #expect(banner.otherParameters.map(\.key) == ["foo", "baz"])
        #expect(banner.otherParameters.first?.value == "bar")
        #expect(banner.appID == "1")
        #expect(banner.content == "foo=bar, app-id=1, baz")
    }

    @Test func onlyTheFirstTagOnAPageCounts() {
        let page = extract("""
            <head><meta name="apple-itunes-app" content="app-id=1"><meta name="apple-itunes-app" content="app-id=2"></head>
            """)
        #expect(page.smartAppBanner?.appStoreID == "1")
    }

    /// A misspelt key gets its suggestion, and a non-numeric id the character that is wrong.
    @Test func reviewSuggestsKeysAndPointsAtTheBadCharacter() throws {
        let html = #"<html><head><title>T</title><meta name="apple-itunes-app" content="app-id=12345678O, app-agrument=myapp://x"></head><body>x</body></html>"#
        let messages = MarkupReview.findings(MarkupExtractor().extract(Array(html.utf8), url: nil)).map(\.message)
        #expect(messages.contains { $0.contains("app-agrument=myapp://x (did you mean 'app-argument'?)") }, "\(messages)")
        #expect(messages.contains { $0.contains("character 9, 'O', is not a digit") }, "\(messages)")
    }
}
