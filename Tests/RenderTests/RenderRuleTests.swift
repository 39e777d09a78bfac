import Markup
import Render
import Testing
import WebURL

/// Which pages `--render auto` renders, decided from the static HTML alone.
@Suite struct RenderRuleTests {
    static func decide(_ html: String, _ mode: RenderMode = .auto) -> RenderRule.Decision {
        let markup = MarkupExtractor().extract(Array(html.utf8), url: WebURL("https://app.example/"), response: .init(contentType: "text/html"))
        return RenderRule.decide(mode, markup: markup, noindex: markup.robots.forbidsIndexing(at: .now))
    }

    static let article = String(repeating: "A paragraph of a page written on the server, long enough to read as one. ", count: 30)

    @Test func shellsAreRenderedAndPagesAreNot() {
        #expect(Self.decide(#"<html><body><div id="root"></div><script src="/main.js"></script></body></html>"#) == .render(.emptyMountPoint))
        #expect(Self.decide(#"<html><body><app-root></app-root><script src="main.js" type="module"></script></body></html>"#) == .render(.emptyMountPoint))
        #expect(Self.decide(#"<html><body><div id="__next"></div><script>self.__next_f=[]</script></body></html>"#) == .render(.emptyMountPoint))
        #expect(Self.decide(#"<html><body><p>Loading…</p><script src="/bundle.js"></script></body></html>"#) == .render(.littleText))
        #expect(Self.decide("<html><body><main><p>\(Self.article)</p></main><script src=/analytics.js></script></body></html>") == .skip,
                "a server-written page with an analytics script")
        #expect(Self.decide("<html><body><div id=root><nav>Menu</nav><p>\(Self.article)</p></div><script src=/hydrate.js></script></body></html>")
                == .skip, "a mount point the server filled (and the scripts hydrate)")
        #expect(Self.decide(#"<html><body><div id="root"></div><script type="application/ld+json">{}</script></body></html>"#) == .skip,
                "JSON-LD is not a script that runs")
        #expect(Self.decide("<html><body><p>Short page, no scripts.</p></body></html>") == .skip)
    }

    @Test func modesAndNoindex() {
        let shell = #"<html><head><meta name="robots" content="noindex"></head><body><div id="root"></div><script src="/main.js"></script></body></html>"#
        #expect(Self.decide(shell) == .skip, "noindex in the static HTML stops rendering")
        #expect(Self.decide(shell, .always) == .skip)
        #expect(Self.decide("<html><body><p>\(Self.article)</p></body></html>", .always) == .render(.asked))
        #expect(Self.decide(#"<html><body><div id="root"></div><script src="/main.js"></script></body></html>"#, .never) == .skip)
    }

    @Test func hostPatterns() throws {
        let policy = try RenderPolicy(parsing: ["never", "*.spa.example=always", "shop.example=auto"])
        #expect(policy.mode(for: "www.spa.example") == .always)
        #expect(policy.mode(for: "spa.example") == .always)
        #expect(policy.mode(for: "notspa.example") == .never)
        #expect(policy.mode(for: "SHOP.example") == .auto)
        #expect(policy.rendersAny)
        #expect(!(try RenderPolicy(parsing: ["never"])).rendersAny)
        #expect(throws: RenderPolicyError.self) { try RenderPolicy(parsing: ["sometimes"]) }
        #expect(throws: RenderPolicyError.self) { try RenderPolicy(parsing: ["*.=always"]) }
    }
}
