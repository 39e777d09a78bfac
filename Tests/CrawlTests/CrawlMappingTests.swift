import Foundation
import JSON
import SearchlightTestSupport
import Testing

/// `crawl --mapping`: a site owner's templates over the pages' schema.org objects.
@Suite struct CrawlMappingTests {
    @Test func schemaObjectsReadAsTheMappingSays() throws {
        let web = try FixtureWeb()
        defer { web.stop() }
        let recipe = """
            <html><head><title>Lemon tart | Bakery</title>
            <script type="application/ld+json">
            {"@context": "https://schema.org", "@type": "Recipe", "name": "Lemon tart",
             "author": {"@type": "Person", "name": "Claire Dubois"}, "recipeYield": "8 slices",
             "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.6", "ratingCount": "31"},
             "recipeIngredient": ["lemons", "butter", "sugar", "eggs"]}
            </script></head><body><h1>Lemon tart</h1><p>A sharp, buttery tart.</p>
            <a href="/about">About</a></body></html>
            """
        web.page("bakery.web.test", "/", html: recipe)
        web.page("bakery.web.test", "/about", html: "<html><head><title>About the bakery</title></head><body>We bake.</body></html>")
        let crawl = try CrawlRunner(web: web, hosts: ["bakery.web.test"])
        defer { crawl.remove() }
        let mapping = crawl.folder.url.appendingPathComponent("bakery.json")
        try """
            {"source": "bakery", "mappings": [{"entity": "Recipe", "uniqueIdentifierPattern": "{#name#}",
              "titlePattern": "{#name#} by {#author.name#}",
              "contentDescriptionPattern": "Serves {#recipeYield#} · {#recipeIngredient.@count#} ingredients: {#recipeIngredient#}",
              "keywordsPatterns": ["recipe", "{#author.name#}"],
              "attributeSet": {"rating": "{#aggregateRating.ratingValue#}", "ratingCount": "{#aggregateRating.ratingCount#}"}}]}
            """.write(to: mapping, atomically: true, encoding: .utf8)
        let (result, report) = try crawl.crawl([web.origin("bakery.web.test") + "/"], ["--mapping", mapping.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report?["indexed"] == 2)
        let hit = try #require(try crawl.search("lemon tart").first)
        #expect(hit["title"] == "Lemon tart by Claire Dubois")
        #expect(hit["description"] == "Serves 8 slices · 4 ingredients: lemons, butter, sugar, eggs")
        #expect(hit["url"]?.stringValue == web.origin("bakery.web.test") + "/", "the page keeps its URL as its identity")
        #expect(hit["rating"]?.doubleValue == 4.6)
        #expect(try crawl.search("claire").count == 1, "keywords from the template")
        #expect(try crawl.search("about bakery").first?["title"] == "About the bakery", "pages without a mapped type are as before")

        let broken = crawl.folder.url.appendingPathComponent("broken.json")
        try #"{"source": "bakery", "mappings": [{"entity": "Recipe", "uniqueIdentifierPattern": "x"}]}"#.write(to: broken, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(["crawl", web.origin("bakery.web.test") + "/", "--data", crawl.data, "--mapping", broken.path])
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("broken.json: mappings[0] (Recipe): titlePattern: required"))
    }
}
