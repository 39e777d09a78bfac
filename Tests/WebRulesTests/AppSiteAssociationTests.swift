import Testing
import WebRules
import WebURL

@Suite struct AppSiteAssociationTests {
    func association(_ json: String) -> AppSiteAssociation {
        AppSiteAssociation(parsing: Array(json.utf8))!
    }

    func claims(_ a: AppSiteAssociation, _ url: String) -> [String] {
        a.appIDs(claiming: WebURL(url)!)
    }

    @Test func theFirstMatchingComponentWinsAndExcludeStops() {
        let a = association("""
            {"applinks": {"details": [{"appIDs": ["T.app"], "components": [
              {"/": "/buy/secret", "exclude": true},
              {"/": "/buy/*"},
              {"/": "/help/*", "?": {"lang": "en"}, "#": "top*"}
            ]}]}}
            """)
        #expect(claims(a, "https://s.example/buy/shoes") == ["T.app"])
        #expect(claims(a, "https://s.example/buy") == ["T.app"], "/buy/* also matches /buy")
        #expect(claims(a, "https://s.example/buy/secret").isEmpty, "excluded, and the later include is not consulted")
        #expect(claims(a, "http://s.example/buy/shoes").isEmpty, "universal links are https only")
        #expect(claims(a, "https://s.example/help/a?lang=en#top-1") == ["T.app"])
        #expect(claims(a, "https://s.example/help/a?lang=fr#top").isEmpty)
        #expect(claims(a, "https://s.example/help/a#top").isEmpty, "an absent query item counts as empty, which 'en' does not match")
    }

    @Test func queryDictionaryRules() {
        let a = association("""
            {"applinks": {"details": [
              {"appIDs": ["T.one"], "components": [{"/": "/q", "?": {"id": "??", "b": "*"}}]},
              {"appIDs": ["T.void"], "components": [{"/": "/v", "?": {"id": 5}}]}
            ]}}
            """)
        #expect(claims(a, "https://s.example/q?id=42") == ["T.one"], "b absent: * matches")
        #expect(claims(a, "https://s.example/q?id=42&id=7").isEmpty, "every occurrence must match")
        #expect(claims(a, "https://s.example/v?anything=1") == ["T.void"], "a non-string value voids the dictionary")
    }

    @Test func caseAndPercentEncodingDefaultsAndOverrides() {
        let a = association("""
            {"applinks": {"defaults": {"caseSensitive": false},
             "details": [{"appIDs": ["T.a"], "defaults": {"percentEncoded": false}, "components": [
               {"/": "/Café/*"}, {"/": "/Strict/*", "caseSensitive": true}]}]}}
            """)
        #expect(claims(a, "https://s.example/caf%C3%A9/menu") == ["T.a"], "decoded and case-folded")
        #expect(claims(a, "https://s.example/strict/x").isEmpty)
        #expect(claims(a, "https://s.example/Strict/x") == ["T.a"])
        let strict = association(#"{"applinks": {"details": [{"appIDs": ["T.b"], "components": [{"/": "/a%2Fb"}]}]}}"#)
        #expect(claims(strict, "https://s.example/a%2Fb") == ["T.b"], "percentEncoded defaults to true: compared encoded")
    }

    @Test func substitutionVariables() {
        let a = association("""
            {"applinks": {"substitutionVariables": {"food": ["burrito", "pizza"]},
             "details": [{"appIDs": ["T.a"], "components": [{"/": "/$(lang)_$(region)/$(food)/*"}, {"/": "/id/$(digit)$(digit)"}]}]}}
            """)
        #expect(claims(a, "https://s.example/en_GB/pizza/x") == ["T.a"])
        #expect(claims(a, "https://s.example/en_UK/pizza/x").isEmpty, "UK is not a region code")
        #expect(claims(a, "https://s.example/fr_FR/sushi/x").isEmpty)
        #expect(claims(a, "https://s.example/id/42") == ["T.a"])
        #expect(claims(a, "https://s.example/id/4x").isEmpty)
    }

    @Test func theLegacyPathsFormat() {
        let a = association(#"{"applinks": {"apps": [], "details": [{"appID": "T.old", "paths": ["NOT /videos/private/*", "/videos/*", "/?"]}]}}"#)
        #expect(claims(a, "https://s.example/videos/1") == ["T.old"])
        #expect(claims(a, "https://s.example/videos/private/1").isEmpty)
        #expect(claims(a, "https://s.example/a") == ["T.old"], "? is one character")
        #expect(claims(a, "https://s.example/ab").isEmpty)
        #expect(a.appIDs == ["T.old"])
    }

    /// A backtracking matcher takes exponential time here; the automaton takes one pass.
    @Test func manyStarsMatchInLinearTime() {
        let stars = String(repeating: "*a", count: 40)
        let a = association(##"{"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/\##(stars)b", "#": "no_*"}, {"/": "/\##(stars)"}]}]}}"##)
        let long = "/" + String(repeating: "a", count: 2000)
        #expect(claims(a, "https://s.example\(long)") == ["T.a"], "the second component matches")
        #expect(claims(a, "https://s.example\(long)b#no_x") == ["T.a"])
        #expect(claims(a, "https://s.example\(long)c").isEmpty)
        // Found by fuzzing: a 10 s timeout with the backtracking matcher.
        let fuzzed = association(##"{"applinks": {"details": [{"appIDs": ["ABCDE12app"], "components": [{"/": "**************y/*", "?": {"ref": "?*"}, "#": "no_*"}]}]}}"##)
        #expect(claims(fuzzed, "https://s.example/" + String(repeating: "x", count: 1500) + "?ref=1#no_").isEmpty)
        #expect(claims(fuzzed, "https://s.example/xy/z?ref=1#no_") == ["ABCDE12app"])
    }

    @Test func patternsPastTheSizeBudgetAreIgnored() {
        let huge = String(repeating: "$(region)", count: 30)
        let a = association("""
            {"applinks": {"details": [{"appIDs": ["T.a"], "components": [{"/": "/a"}, {"/": "/\(huge)"}, {"/": "/b"}]}]}}
            """)
        #expect(claims(a, "https://s.example/a") == ["T.a"])
        #expect(claims(a, "https://s.example/b").isEmpty, "the budget ran out before this component")
        #expect(a.appIDs == ["T.a"])
    }

    @Test func brokenFilesAreNilAndFilesWithoutApplinksClaimNothing() throws {
        #expect(AppSiteAssociation(parsing: Array("not json".utf8)) == nil)
        #expect(AppSiteAssociation(parsing: Array("[1, 2]".utf8)) == nil)
        let credentials = try #require(AppSiteAssociation(parsing: Array(#"{"webcredentials": {}}"#.utf8)), "valid, as swcutil reads it")
        #expect(credentials.appIDs.isEmpty)
        #expect(credentials.match(for: WebURL("https://s.example/")!) == nil)
    }

    @Test func assetLinksListHandlingPackages() {
        let links = AssetLinks(parsing: Array("""
            [{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.a"}},
             {"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app", "package_name": "com.b"}},
             {"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "web", "site": "https://x"}}]
            """.utf8))
        #expect(links?.packages == ["com.a"])
    }
}

@Suite struct URLRulesTests {
    @Test func frontierKeysDropTrackingAndSessionParameters() {
        let keys = FrontierKey()
        func key(_ s: String) -> String { keys.key(for: WebURL(s)!).string }
        #expect(key("https://a.example/p?utm_source=x&id=1&fbclid=2#frag") == "https://a.example/p?id=1")
        #expect(key("https://a.example/p?utm_medium=x") == "https://a.example/p")
        #expect(key("https://a.example/p;jsessionid=ABC123?x=1") == "https://a.example/p?x=1")
        #expect(key("https://a.example/p?PHPSESSID=abc&page=2") == "https://a.example/p?page=2")
        #expect(FrontierKey(keepsTrackingParameters: true).key(for: WebURL("https://a.example/p?utm_source=x")!).string
                == "https://a.example/p?utm_source=x")
    }

    @Test func trapsAreRecognised() {
        #expect(URLTrap.check(WebURL("https://a.example/a/b/a/b/a/b/")!) == .repeatedPathSegment)
        #expect(URLTrap.check(WebURL("https://a.example/" + (1...25).map(String.init).joined(separator: "/"))!) == .tooDeepPath)
        #expect(URLTrap.check(WebURL("https://a.example/?" + String(repeating: "x", count: 3000))!) == .urlTooLong)
        #expect(URLTrap.check(WebURL("https://a.example/calendar?month=2026-11")!) == nil)
    }

    @Test func scopes() throws {
        let seeds = [WebURL("https://shop.example.co.uk/")!]
        let hosts = try CrawlScope(seeds: seeds)
        #expect(hosts.contains(WebURL("http://shop.example.co.uk/x")!), "http on 80 and https on 443 are one site")
        #expect(!hosts.contains(WebURL("http://shop.example.co.uk:8080/x")!), "another port is another server")
        #expect(!hosts.contains(WebURL("https://shop.example.co.uk:8443/x")!))
        #expect(!hosts.contains(WebURL("https://www.example.co.uk/")!))
        let onPort = try CrawlScope(seeds: [WebURL("http://127.0.0.1:8080/")!])
        #expect(onPort.contains(WebURL("http://127.0.0.1:8080/a")!))
        #expect(!onPort.contains(WebURL("http://127.0.0.1:9090/a")!), "a redirect to another port of the same host is out of scope")
        #expect(!onPort.contains(WebURL("https://127.0.0.1:8080/a")!), "the same port under another scheme is another server")
        let domain = try CrawlScope(seeds: seeds, mode: .domain)
        #expect(domain.contains(WebURL("https://www.example.co.uk/")!), "same registrable domain, per the public suffix list")
        #expect(!domain.contains(WebURL("https://other.co.uk/")!))
        #expect(!domain.contains(WebURL("https://www.example.co.uk:2375/")!), "domain scope keeps to the default ports and the seeds'")
        #expect(CrawlScope.registrableDomain("a.b.example.co.uk") == "example.co.uk")
        let filtered = try CrawlScope(seeds: seeds, include: ["/p/"], exclude: ["\\?sort="])
        #expect(filtered.contains(WebURL("https://shop.example.co.uk/p/1")!))
        #expect(!filtered.contains(WebURL("https://shop.example.co.uk/about")!))
        #expect(!filtered.contains(WebURL("https://shop.example.co.uk/p/1?sort=price")!))
        #expect(throws: CrawlScopeError.self) { try CrawlScope(seeds: seeds, include: ["(unclosed"]) }
    }
}
