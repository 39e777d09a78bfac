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
}
