import JSON
import Markup
import Testing

@Suite struct JSONLDTests {
    @Test func arraysGraphsAndSeveralBlocksKeepDocumentOrder() {
        let page = extract("""
            <script type="application/ld+json">[{"@type": "Thing", "name": "A"}, {"@type": "Thing", "name": "B"}]</script>
            <div itemscope itemtype="https://schema.org/Thing"><span itemprop="name">C</span></div>
            <script type="application/ld+json; charset=utf-8">{"@graph": [{"@type": "Thing", "name": "D"}]}</script>
            <script type="text/javascript">{"@type": "Thing", "name": "not JSON-LD"}</script>
            """)
        #expect(page.schemaObjects.map { $0.value["name"] } == ["A", "B", "C", "D"])
        #expect(page.schemaObjects.map(\.source) == [.jsonLD, .jsonLD, .microdata, .jsonLD])
    }

    @Test func mainEntityChoiceSkipsSiteChrome() {
        let page = extract("""
            <script type="application/ld+json">{"@context": "https://schema.org", "@type": "WebSite", "name": "Shop",
              "potentialAction": {"@type": "SearchAction", "target": "https://shop.example/s?q={q}", "query-input": "required name=q"}}</script>
            <script type="application/ld+json">{"@type": "BreadcrumbList"}</script>
            <script type="application/ld+json">{"@type": ["Product", "IndividualProduct"], "headline": "Kettle",
              "image": {"@type": "ImageObject", "contentUrl": "/k.png"},
              "offers": {"@type": "Offer", "price": 25, "priceCurrency": "GBP"},
              "aggregateRating": {"ratingValue": "x"}}</script>
            """)
        #expect(page.schema.types == ["Product", "IndividualProduct"])
        #expect(page.schema.name == "Kettle", "headline when there is no name")
        #expect(page.schema.images == ["https://site.example/k.png"])
        #expect(page.schema.offer?.price == "25")
        #expect(page.schema.offer?.amount == 25)
        #expect(page.schema.rating == nil, "a non-numeric rating is no rating")
        #expect(page.schema.searchAction?.targets.first?.urlTemplate == "https://shop.example/s?q={q}")
    }

    @Test func idReferencesResolveAndDoNotLoop() {
        let page = extract("""
            <script type="application/ld+json">{"@graph": [
              {"@type": "LocalBusiness", "@id": "#biz", "name": "Café", "address": {"@id": "#addr"}, "parentOrganization": {"@id": "#biz"},
               "telephone": "+33 1 23 45 67 89"},
              {"@type": "PostalAddress", "@id": "#addr", "streetAddress": "3 rue X", "addressLocality": "Paris"}]}</script>
            """)
        #expect(page.schema.types == ["LocalBusiness"])
        #expect(page.schema.address?.formatted == "3 rue X, Paris")
        #expect(page.schema.telephone == "+33 1 23 45 67 89")
    }

    /// Coordinates from the main entity's `geo`, its own `latitude`/`longitude` (a Place), or
    /// its `location` or `address`; text numbers read, out of range and 0,0 ignored.
    @Test func coordinatesComeFromGeoLocationOrAddress() {
        func coordinates(_ json: String) -> SchemaSummary.Coordinates? {
            extract("<script type=\"application/ld+json\">\(json)</script>").schema.coordinates
        }
        #expect(coordinates("""
            {"@type": "Restaurant", "name": "Chez A", "geo": {"@type": "GeoCoordinates", "latitude": 48.8606, "longitude": "2.3376"}}
            """) == SchemaSummary.Coordinates(latitude: 48.8606, longitude: 2.3376))
        #expect(coordinates("""
            {"@type": "Event", "name": "Concert", "location": {"@type": "Place", "name": "Hall",
             "geo": {"@type": "GeoCoordinates", "latitude": "51.5", "longitude": "-0.12"}}}
            """) == SchemaSummary.Coordinates(latitude: 51.5, longitude: -0.12))
        #expect(coordinates("""
            {"@type": "Event", "name": "Fair", "location": {"@id": "#park"}}
            """) == nil)
        #expect(coordinates("""
            {"@graph": [{"@type": "Event", "name": "Fair", "location": {"@id": "#park"}},
                        {"@type": "Park", "@id": "#park", "latitude": 40.78, "longitude": -73.97}]}
            """) == SchemaSummary.Coordinates(latitude: 40.78, longitude: -73.97))
        #expect(coordinates("""
            {"@type": "Store", "name": "Shop", "address": {"@type": "PostalAddress", "streetAddress": "1 Main St",
             "geo": {"latitude": 35.68, "longitude": 139.76}}}
            """) == SchemaSummary.Coordinates(latitude: 35.68, longitude: 139.76))
        for bad in [#"{"latitude": 0, "longitude": 0}"#, #"{"latitude": 91, "longitude": 2}"#, #"{"latitude": "north", "longitude": 2}"#,
                    #"{"latitude": 48.8}"#] {
            #expect(coordinates(#"{"@type": "Restaurant", "name": "X", "geo": \#(bad)}"#) == nil, "\(bad)")
        }
    }

    @Test func viewActionsBecomeDeepLinksPerPlatform() {
        let page = extract("""
            <script type="application/ld+json">{"@type": "Recipe", "name": "Soup",
              "potentialAction": [{"@type": "ViewAction", "target": ["android-app://com.soup/soup/recipe/1", "ios-app://42/soup/recipe/1",
                {"@type": "EntryPoint", "urlTemplate": "soupapp://recipe/1"},
                {"@type": "EntryPoint", "urlTemplate": "https://soup.example/r/1", "actionPlatform": "https://schema.org/DesktopWebPlatform"}]}]}</script>
            """)
        let links = page.schema.deepLinks
        #expect(links.map(\.platform) == [.android, .ios, .ios])
        #expect(links.map(\.url) == ["soup://recipe/1", "soup://recipe/1", "soupapp://recipe/1"])
        #expect(links.map(\.appID) == ["com.soup", "42", nil])
        #expect(page.schema.actions.first?.type == "ViewAction")
    }

    @Test func theLegacyInteractionCountForm() {
        let page = extract(#"<script type="application/ld+json">{"@type": "VideoObject", "name": "v", "interactionCount": "UserLikes:1234"}</script>"#)
        #expect(page.schema.interactions == [SchemaSummary.Interaction(type: "UserLikes", count: 1234)])
    }

    @Test func brokenBlocksAreReportedAndTheRestSurvives() {
        let page = extract("""
            <script type="application/ld+json">{"@type": "Thing", "name": "ok"}</script>
            <script type="application/ld+json">{{{{</script>
            <script type="application/ld+json"></script>
            """)
        #expect(page.schemaObjects.count == 1)
        #expect(page.warnings.contains { $0.code == .jsonLDInvalid && $0.message.contains("block 2") })
    }
}

@Suite struct MicrodataTests {
    @Test func perElementValueRules() throws {
        let page = extract("""
            <div itemscope itemtype="https://schema.org/Product">
              <meta itemprop="sku" content="  S-1  ">
              <audio itemprop="audio" src="/a.mp3"></audio><video itemprop="video" src="v.mp4"></video>
              <embed itemprop="embed" src="/e"><iframe itemprop="frame" src="/f"></iframe>
              <source itemprop="source" src="/s"><track itemprop="track" src="/t">
              <object itemprop="object" data="/o"></object>
              <area itemprop="area" href="/ar"><link itemprop="link" href="/l">
              <meter itemprop="score" value="0.7">70%</meter>
              <time itemprop="released" datetime="2026-01-02">last January</time>
              <span itemprop="name">  Red
                 kettle </span>
            </div>
            """, url: "https://shop.example/p/1")
        let item = try #require(page.schemaObjects.first).value
        #expect(item["sku"] == "S-1")
        #expect(item["audio"] == "https://shop.example/a.mp3")
        #expect(item["video"] == "https://shop.example/p/v.mp4")
        #expect(item["embed"] == "https://shop.example/e")
        #expect(item["frame"] == "https://shop.example/f")
        #expect(item["source"] == "https://shop.example/s")
        #expect(item["track"] == "https://shop.example/t")
        #expect(item["object"] == "https://shop.example/o")
        #expect(item["area"] == "https://shop.example/ar")
        #expect(item["link"] == "https://shop.example/l")
        #expect(item["score"] == "0.7")
        #expect(item["released"] == "2026-01-02")
        #expect(item["name"] == "Red kettle")
    }

    @Test func nestedItemsKeepTheirOwnProperties() throws {
        let page = extract("""
            <div itemscope itemtype="https://schema.org/Movie">
              <h1 itemprop="name">Arrival</h1>
              <div itemprop="director" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Denis</span></div>
              <div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
                <span itemprop="ratingValue">4.5</span> from <span itemprop="ratingCount">900</span></div>
            </div>
            """)
        let movie = try #require(page.schemaObjects.first).value
        #expect(movie["name"] == "Arrival")
        #expect(movie["director"]?["name"] == "Denis")
        #expect(page.schema.rating?.value == 4.5)
        #expect(page.schema.rating?.count == 900)
        #expect(page.schemaObjects.count == 1, "items with itemprop are values, not top-level items")
    }

    @Test func itemrefCyclesAndMissingTargetsAreReported() throws {
        let page = extract("""
            <div id="a" itemscope itemtype="https://schema.org/Thing" itemref="b missing"><span itemprop="name">A</span></div>
            <div id="b"><div itemprop="related" itemscope itemref="a"><span itemprop="name">B</span></div></div>
            """)
        let a = try #require(page.schemaObjects.first).value
        #expect(a["name"] == "A")
        #expect(a["related"]?["name"] == "B")
        #expect(page.warnings.contains { $0.code == .microdata && $0.message.contains("missing") })
        #expect(page.warnings.contains { $0.code == .microdata && $0.message.contains("cycle") })
    }
}
