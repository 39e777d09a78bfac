import Markup
import Testing

@Suite struct OpenGraphTests {
    @Test func structuredPropertiesBelongToTheMostRecentRoot() throws {
        let og = try #require(OpenGraph(properties: [
            ("og:image:width", "10"),
            ("og:image", "https://a.example/1.png"), ("og:image:width", "100"), ("og:image:width", "999"),
            ("og:image", "https://a.example/2.png"), ("og:image:height", "50"),
            ("og:image:url", "https://a.example/3.png"),
            ("og:audio", "https://a.example/a.mp3"), ("og:audio:type", "audio/mpeg"),
            ("og:title", "First"), ("og:title", "Second"), ("OG:Description", "Desc"),
            ("og:locale", "en_US"), ("og:locale:alternate", "fr_FR"), ("og:locale:alternate", "es_ES"),
        ]))
        #expect(og.images.map(\.url) == [nil, "https://a.example/1.png", "https://a.example/2.png", "https://a.example/3.png"])
        #expect(og.images[0].width == 10, "a structured property before any root starts its own element")
        #expect(og.images[1].width == 100, "within one element the first value wins")
        #expect(og.images[2].height == 50)
        #expect(og.audios.first?.type == "audio/mpeg")
        #expect(og.title == "First")
        #expect(og.description == "Desc")
        #expect(og.localeAlternates == ["fr_FR", "es_ES"])
        #expect(og.properties.count == 15)
    }
}

@Suite struct RobotsDirectivesTests {
    func robots(meta: [String] = [], headers: [String] = []) -> RobotsDirectives {
        var r = RobotsDirectives()
        for m in meta { r.apply(metaContent: m) }
        for h in headers { r.apply(headerValue: h) }
        return r
    }

    @Test func noneMeansNoindexAndNofollow() {
        let r = robots(meta: ["NONE"])
        #expect(r.noindex && r.nofollow)
    }

    @Test func theMostRestrictiveDirectiveWins() {
        let r = robots(meta: ["index, follow, max-snippet:-1", "max-snippet:50", "max-snippet:120, max-image-preview:large",
                              "max-image-preview:standard", "noindex"])
        #expect(r.noindex)
        #expect(r.maxSnippet == 50)
        #expect(r.maxImagePreview == "standard")
        #expect(!r.nofollow)
    }

    @Test func headerAgentPrefixesApplyToTheRestOfTheValue() {
        #expect(robots(headers: ["otherbot: noindex, nofollow"]) == RobotsDirectives())
        let mixed = robots(headers: ["nosnippet, otherbot: noindex", "searchlightbot: nofollow", "SearchlightBot: noarchive"])
        #expect(mixed.nosnippet && mixed.nofollow && mixed.noarchive)
        #expect(!mixed.noindex)
    }

    @Test func unavailableAfterIsParsedInTheFormsGoogleShows() throws {
        let rfc850 = robots(headers: ["unavailable_after: 25 Jun 2010 15:00:00 GMT"])
        let date = try #require(rfc850.unavailableAfterDate)
        #expect(date.timeIntervalSince1970 == 1_277_478_000)
        #expect(rfc850.forbidsIndexing(at: date))
        #expect(!rfc850.forbidsIndexing(at: date.addingTimeInterval(-1)))
        let iso = robots(meta: ["unavailable_after: 2030-01-02"])
        #expect(iso.unavailableAfterDate?.timeIntervalSince1970 == 1_893_542_400)
        let garbage = robots(meta: ["unavailable_after: someday"])
        #expect(garbage.unavailableAfter == "someday")
        #expect(garbage.unavailableAfterDate == nil)
    }

    @Test func pageMetaAndHeaderCombine() {
        let page = extract("""
            <head><meta name="ROBOTS" content="nofollow"><meta name="SearchlightBot" content="noarchive">
            <meta name="googlebot" content="noindex"></head>
            """, response: .init(robotsTags: ["googlebot: nosnippet", "noimageindex"]))
        #expect(page.robots.nofollow && page.robots.noarchive && page.robots.noimageindex)
        #expect(!page.robots.noindex && !page.robots.nosnippet)
    }
}
