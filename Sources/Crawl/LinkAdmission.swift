import Markup
import WebRules
import WebURL

/// The one place that decides whether a URL may be followed — a page's link or canonical,
/// a redirect's target, a sitemap's entry: put in the crawl's normal form (``FrontierKey``),
/// then refused when it looks like an endless URL space (``URLTrap``) or lies outside the
/// crawl's scope; a page's links not at all under `nofollow` or past the depth limit, a
/// redirect not past ``maximumRedirects`` hops. Pure.
///
/// What is learned while crawling stays with its owner: robots.txt and the URL patterns a
/// host has shown to be traps (``HostMachine``), the URLs already queued this run (``SeenFilter``).
public struct LinkAdmission: Sendable {
    public enum Source: Sendable {
        case link, canonical, redirect, sitemap
    }

    public enum Verdict: Sendable, Equatable {
        case follow(WebURL)
        case drop(SkipReason)
    }

    /// A chain of redirects is followed this many hops, then the URL is given up (`tooManyRedirects`).
    public static let maximumRedirects = 10

    public let keys: FrontierKey
    public let scope: CrawlScope
    /// Links are followed this many steps from a seed (`--max-depth`).
    public let maximumDepth: Int

    public init(keys: FrontierKey, scope: CrawlScope, maximumDepth: Int = .max) {
        self.keys = keys
        self.scope = scope
        self.maximumDepth = maximumDepth
    }

    public func admit(_ url: WebURL, from source: Source) -> Verdict {
        var site = SiteMemo()
        return admit(url, from: source, site: &site)
    }

    /// The scope's answer for the last site (scheme, host and port) a page's links named:
    /// most of them name the page's own, and deciding a site (the public suffix list) cost
    /// more than the rest of admitting a link.
    struct SiteMemo {
        var url: WebURL?
        var inScope = false
    }

    private func admit(_ url: WebURL, from source: Source, site: inout SiteMemo) -> Verdict {
        let key = keys.key(for: url)
        if let trap = URLTrap.check(key) { return .drop(.trap(trap)) }
        let siteInScope: Bool
        if let last = site.url, key.hasSameAuthority(as: last) {
            siteInScope = site.inScope
        } else {
            siteInScope = scope.containsSite(key)
            site = SiteMemo(url: key, inScope: siteInScope)
        }
        guard siteInScope, scope.matchesPatterns(key) else { return .drop(source == .redirect ? .redirectOutOfScope : .outOfScope) }
        return .follow(key)
    }

    /// The links a page at `url` gives the crawl, each admitted once, and how many were
    /// dropped for each reason. None under `<meta name="robots" content="nofollow">` (or its
    /// header); a link marked `rel="nofollow"` is not followed either, the way the large crawlers
    /// read the hint; the canonical, when it names another URL, is.
    public func links(of markup: PageMarkup, at url: WebURL) -> (links: [WebURL], dropped: [SkipReason: Int]) {
        guard !markup.robots.nofollow else { return ([], [:]) }
        var candidates = markup.outlinks.filter { !$0.rel.contains(.nofollow) }.map { ($0.url, Source.link) }
        if let canonical = markup.canonicalURL, canonical.withoutFragment != url { candidates.append((canonical, .canonical)) }
        var seen = Set<String>()
        var links: [WebURL] = []
        var dropped: [SkipReason: Int] = [:]
        var site = SiteMemo()
        for (link, source) in candidates {
            switch admit(link, from: source, site: &site) {
            case .follow(let key):
                if seen.insert(key.string).inserted { links.append(key) }
            case .drop(let reason):
                dropped[reason, default: 0] += 1
            }
        }
        return (links, dropped)
    }

    /// Whether the links of a page `depth` steps from a seed are followed.
    public func followsLinks(fromDepth depth: Int) -> Bool {
        depth < maximumDepth
    }

    /// Whether a redirect is followed from a URL reached through `hops` redirects.
    public func followsRedirect(afterHops hops: Int) -> Bool {
        hops < Self.maximumRedirects
    }

    /// Whether a sitemap that `origin`'s robots.txt (or sitemap index) names is read: always
    /// on the origin itself — the owner's own word — and elsewhere only within the scope.
    public func readsSitemap(_ sitemap: WebURL, namedBy origin: String) -> Bool {
        sitemap.origin == origin || scope.contains(sitemap)
    }

    /// Whether an origin the store knows lies in this run's scope (its sitemaps are read
    /// again when due).
    public func includes(origin: String) -> Bool {
        WebURL(origin + "/").map(scope.contains) ?? false
    }
}
