import Testing
import WebRules
import WebURL

@Suite struct RobotsRulesTests {
    func rules(_ text: String) -> RobotsRules {
        RobotsRules(parsing: Array(text.utf8), productToken: "searchlightbot", robotsURL: WebURL("https://site.example/robots.txt"))
    }

    @Test func ourGroupsAreMergedAndDoNotInheritTheStarGroup() {
        let r = rules("""
            User-agent: *
            Disallow: /

            User-agent: SearchlightBot/2.1
            Disallow: /private

            User-agent: otherbot
            User-agent: searchlightbot
            Disallow: /tmp/
            """)
        #expect(r.allows(pathAndQuery: "/public"), "the * group's Disallow: / does not apply to us")
        #expect(!r.allows(pathAndQuery: "/private/x"))
        #expect(!r.allows(pathAndQuery: "/tmp/file"), "both groups naming us are merged")
    }

    @Test func theStarGroupAppliesWhenNoGroupNamesUs() {
        let r = rules("User-agent: googlebot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin\n")
        #expect(r.allows(pathAndQuery: "/"))
        #expect(!r.allows(pathAndQuery: "/admin/users"))
        #expect(rules("User-agent: googlebot\nDisallow: /\n").allows(pathAndQuery: "/anything"), "no matching group: unrestricted")
    }

    @Test func theLongestMatchWinsAndAllowWinsATie() {
        let r = rules("""
            User-agent: *
            Disallow: /shop
            Allow: /shop/products
            Disallow: /shop/products/secret
            Allow: /page
            Disallow: /page
            """)
        #expect(!r.allows(pathAndQuery: "/shop/cart"))
        #expect(r.allows(pathAndQuery: "/shop/products/1"))
        #expect(!r.allows(pathAndQuery: "/shop/products/secret-sale"))
        #expect(r.allows(pathAndQuery: "/page"), "equal length: allow")
    }

    @Test func wildcardsAnchorsAndLiteralEscapes() {
        let r = rules("""
            User-agent: *
            Disallow: /*.pdf$
            Disallow: /*/filter/page=*/$
            Disallow: /search?*q=
            Disallow: /star%2Ahere
            Disallow: /fish
            """)
        #expect(!r.allows(pathAndQuery: "/docs/manual.pdf"))
        #expect(r.allows(pathAndQuery: "/docs/manual.pdf?download=1"), "$ anchors the end")
        #expect(!r.allows(pathAndQuery: "/shoes/filter/page=2/"))
        #expect(r.allows(pathAndQuery: "/shoes/filter/page=2/more"))
        #expect(!r.allows(pathAndQuery: "/search?lang=en&q=tart"))
        #expect(!r.allows(pathAndQuery: "/star*here"), "%2A is a literal *")
        #expect(r.allows(pathAndQuery: "/starXhere"))
        #expect(!r.allows(pathAndQuery: "/fish.html"), "a rule is a prefix")
        #expect(!r.allows(pathAndQuery: "/fishheads/yummy"))
        #expect(r.allows(pathAndQuery: "/Fish"), "paths are case-sensitive")
    }

    @Test func percentEncodingIsCompared() {
        let r = rules("User-agent: *\nDisallow: /%7Ejoe/\nDisallow: /café\n")
        #expect(!r.allows(pathAndQuery: "/~joe/index.html"), "%7E is ~, an unreserved character")
        #expect(!r.allows(WebURL("https://site.example/caf%C3%A9/menu")!))
    }

    @Test func robotsTxtItselfIsAlwaysAllowed() {
        #expect(rules("User-agent: *\nDisallow: /\n").allows(pathAndQuery: "/robots.txt"))
        #expect(RobotsRules.unreachable.allows(pathAndQuery: "/robots.txt"))
    }

    @Test func statusCodesDecideWhenThereAreNoRules() {
        #expect(RobotsRules.forStatus(404).allows(pathAndQuery: "/x"))
        #expect(RobotsRules.forStatus(403).allows(pathAndQuery: "/x"), "4xx: allow all")
        #expect(!RobotsRules.forStatus(500).allows(pathAndQuery: "/x"), "5xx: disallow all")
        #expect(!RobotsRules.forStatus(503).allows(pathAndQuery: "/"))
    }

    @Test func oneRobotsTxtNamesAtMostFiftySitemaps() {
        let many = rules((0..<1000).map { "Sitemap: /maps/\($0).xml\n" }.joined())
        #expect(many.sitemaps.count == RobotsRules.maximumSitemaps && RobotsRules.maximumSitemaps == 50)
        #expect(many.sitemaps.first == "https://site.example/maps/0.xml" && many.sitemaps.last == "https://site.example/maps/49.xml")
    }

    @Test func sitemapsCrawlDelayBOMCommentsAndOddLines() {
        let text = "\u{FEFF}Sitemap: /sitemap-top.xml\nuser-AGENT: *   # comment\nCrawl-delay: 2.5\nDISALLOW: /a # trailing\n"
            + "Sitemap: https://cdn.example/maps/site.xml\nnonsense line\nDisallow:\nUser-agent: b\nCrawl-delay: 500\n"
        let r = rules(text)
        #expect(r.sitemaps == ["https://site.example/sitemap-top.xml", "https://cdn.example/maps/site.xml"])
        #expect(r.crawlDelay == 2.5)
        #expect(!r.allows(pathAndQuery: "/a/b"))
        #expect(r.allows(pathAndQuery: "/b"), "an empty Disallow allows everything")
        let slow = rules("User-agent: searchlightbot\nCrawl-delay: 500\n")
        #expect(slow.crawlDelay == RobotsRules.maximumCrawlDelay, "capped")
    }

    @Test func rulesBeforeAnyUserAgentAreIgnoredAndOnly500KiBIsRead() {
        #expect(rules("Disallow: /\nUser-agent: *\nDisallow: /x\n").allows(pathAndQuery: "/y"))
        let padding = String(repeating: "# padding\n", count: 60_000)
        let late = rules("User-agent: *\n" + padding + "Disallow: /late\n")
        #expect(late.allows(pathAndQuery: "/late"), "rules past 500 KiB are not read")
    }

    /// RFC 9309 §2.1: only rules end a group's user-agent lines; a crawl-delay between two
    /// user-agent lines does not (the old parser started a new group there).
    @Test func aCrawlDelayBetweenUserAgentsDoesNotEndTheGroup() {
        let r = rules("user-agent: searchlightbot\ncrawl-delay: 1\nuser-agent: *\ndisallow: /private\n")
        #expect(!r.allows(pathAndQuery: "/private"))
        #expect(r.crawlDelay == 1)
        #expect(r.group == "searchlightbot")
        let sitemapBetween = rules("user-agent: searchlightbot\nsitemap: /s.xml\nuser-agent: other\ndisallow: /x\n")
        #expect(!sitemapBetween.allows(pathAndQuery: "/x"))
    }

    @Test func escapedStarsAndDollarsMatchThemselvesWrittenEitherWay() {
        let r = rules("User-agent: *\nDisallow: /a%2Ab\nDisallow: /price%24$\nDisallow: /lower%2ac\n")
        #expect(!r.allows(pathAndQuery: "/a%2Ab"), "the identical escaped path")
        #expect(!r.allows(pathAndQuery: "/a*b"), "and the raw character")
        #expect(r.allows(pathAndQuery: "/aXb"), "not a wildcard")
        #expect(!r.allows(pathAndQuery: "/price$"))
        #expect(!r.allows(pathAndQuery: "/price%24"))
        #expect(r.allows(pathAndQuery: "/price$x"), "the final $ still anchors")
        #expect(!r.allows(pathAndQuery: "/lower*c"), "%2a is %2A")
        #expect(r.verdict(pathAndQuery: "/a*b").rule?.pattern == "/a%2Ab")
    }

    /// `#` followed by a combining mark is one Swift Character but still starts a comment;
    /// the same goes for `:` before one.
    @Test func commentsAndSeparatorsAreFoundInBytes() {
        let r = rules("User-agent: *\nDisallow: /x#\u{0301}/not-part-of-it\nDisallow:\u{0301}/y\nDisallow: /z #\u{FE0F} comment\n")
        #expect(!r.allows(pathAndQuery: "/x/anything"), "the rule is /x, the rest is a comment")
        #expect(!r.allows(pathAndQuery: "/zoo"))
        #expect(r.rules.map(\.pattern).contains("/x"))
    }

    @Test func aLineCutAtTheSizeLimitIsDropped() {
        let head = "User-agent: *\nDisallow: /\n"
        let filler = String(repeating: "#", count: RobotsRules.maximumBytes - head.utf8.count - "Allow: /p".utf8.count - 1) + "\n"
        let body = Array((head + filler + "Allow: /public-docs\n").utf8)
        #expect(body.count > RobotsRules.maximumBytes)
        let r = RobotsRules(parsing: body, productToken: "searchlightbot")
        #expect(!r.allows(pathAndQuery: "/p"), "the cut line 'Allow: /p' is not read")
        #expect(!r.allows(pathAndQuery: "/public-docs"))
        #expect(RobotsRules.readable(body).count < RobotsRules.maximumBytes)
    }

    @Test func verdictsNameTheRuleAndItsLine() {
        let r = rules("# site rules\nUser-agent: *\nDisallow: /shop\nAllow: /shop/items\r\nDisallow: /shop/items/secret\r\n")
        let verdict = r.verdict(pathAndQuery: "/shop/items/1")
        #expect(verdict.allowed)
        #expect(verdict.rule == RobotsRules.Rule(allow: true, pattern: "/shop/items", line: 4))
        #expect(r.verdict(pathAndQuery: "/shop/items/secret/x").rule?.line == 5, "CRLF counts as one line end")
        #expect(r.verdict(pathAndQuery: "/else").rule == nil)
        #expect(r.group == "*")
        #expect(rules("User-agent: googlebot\nDisallow: /\n").group == nil)
    }
}
