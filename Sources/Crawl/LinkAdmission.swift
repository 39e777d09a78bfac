import WebRules
import WebURL

/// The one place that decides whether a URL may be followed — a page's link or canonical,
/// a redirect's target, a sitemap's entry: put in the crawl's normal form (``FrontierKey``),
/// then refused when it looks like an endless URL space (``URLTrap``) or lies outside the
/// crawl's scope. Pure.
public struct LinkAdmission: Sendable {
    public enum Source: Sendable {
        case link, canonical, redirect, sitemap
    }

    public enum Verdict: Sendable, Equatable {
        case follow(WebURL)
        case drop(SkipReason)
    }

    public let keys: FrontierKey
    public let scope: CrawlScope

    public init(keys: FrontierKey, scope: CrawlScope) {
        self.keys = keys
        self.scope = scope
    }

    public func admit(_ url: WebURL, from source: Source) -> Verdict {
        let key = keys.key(for: url)
        if let trap = URLTrap.check(key) { return .drop(.trap(trap)) }
        guard scope.contains(key) else { return .drop(source == .redirect ? .redirectOutOfScope : .outOfScope) }
        return .follow(key)
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
