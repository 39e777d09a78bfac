import Fetch
import Foundation
import Items
import Markup
import PageItems
import Render
import StoreSeams
import TextUtilities
import WebRules
import WebURL

/// Reads one fetched response: what it is (an item to index, a redirect, a failure…), the
/// links to follow, the body's digest. Pure apart from the clock; runs on any extraction
/// thread, so the costly part of a page — parsing it — is spread over the cores.
struct PageAnalyzer: Sendable {
    let extractor = MarkupExtractor()
    var builder: ItemBuilder
    let admission: LinkAdmission
    /// What the crawl learnt of the sites' repeated text; nil when one page is read alone.
    var templates: SiteTemplates?
    /// Renders the pages ``RenderRule`` picks under ``render``; nil renders none.
    var renderer: Renderer?
    var render = RenderPolicy(mode: .never)

    struct Result: Sendable {
        enum Kind: Sendable {
            /// Index this item (its id may differ from the URL: the canonical).
            case indexed(ValidItem)
            /// Fetched, nothing to index, for this reason.
            case notIndexed(SkipReason)
            /// 304: unchanged since the last fetch.
            case notModified
            /// 3xx to this target.
            case redirect(WebURL)
            /// 404/410.
            case gone
            /// A transient failure, tried again later (timeout, 5xx, connection errors); a 503
            /// also asks the host to be left alone for `backOff` seconds.
            case failed(SkipReason, backOff: TimeInterval? = nil)
            /// 429: the host asks to slow down, for this long.
            case throttled(retryAfter: TimeInterval)
            /// The fetch was refused or cut for a reason that will not change by retrying.
            case refused(SkipReason)
        }

        var entry: FrontierEntry
        var kind: Kind
        /// The rule behind a `notIndexed` verdict where the reason alone does not say it
        /// (`invalid-item`: the item contract's broken rule).
        var detail: String?
        var status: Int
        var links: [WebURL] = []
        /// Links not followed, by reason.
        var droppedLinks: [SkipReason: Int] = [:]
        /// The body's digest, or the rendered document's when the page was rendered: what
        /// duplicates and changes are told by.
        var digest: ContentDigest?
        /// The visible text's SimHash and shingles, for every HTML page read.
        var fingerprint: TextFingerprint?
        var bytes: Int
        var etag: String?
        var lastModified: String?
        /// The page's markup, kept only when asked for (`validate` shows it).
        var markup: PageMarkup?
        /// The page was rendered in a browser (or tried): what came of it.
        var render: RenderOutcome?
        /// The page's markup before rendering, kept only when asked for and rendered.
        var staticMarkup: PageMarkup?
    }

    /// - Parameter robots: the rules of the page's own origin, which decide whether a
    ///   canonical on that origin can be crawled (one on another origin is assumed to be).
    func analyze(_ response: FetchResponse, entry: FrontierEntry, associations: ItemBuilder.Associations, robots: RobotsRules?,
                 now: Date, keepMarkup: Bool = false) -> Result {
        let url = entry.url
        var result = Result(entry: entry, kind: .notIndexed(.notHTML), status: response.status, bytes: response.body.count,
                            etag: response.headers.first("ETag"), lastModified: response.headers.first("Last-Modified"))
        if let error = response.error {
            result.kind = error.isPermanent ? .refused(.fetch(error)) : .failed(.fetch(error))
            return result
        }
        switch response.status {
        case 200..<300:
            break
        case 304:
            result.kind = .notModified
            return result
        case 300..<400:
            if let location = response.redirectURL.flatMap(WebURL.init) {
                result.kind = .redirect(location)
            } else {
                result.kind = .notIndexed(.redirectWithoutLocation)
            }
            return result
        case 404, 410:
            result.kind = .gone
            return result
        case 429:
            result.kind = .throttled(retryAfter: HTTPDate.retryAfter(response.headers.first("Retry-After"), now: now.timeIntervalSince1970) ?? 60)
            return result
        case 503:
            result.kind = .failed(.http(503), backOff: HTTPDate.retryAfter(response.headers.first("Retry-After"), now: now.timeIntervalSince1970) ?? 60)
            return result
        case 500..<600:
            result.kind = .failed(.http(response.status))
            return result
        default:
            result.kind = .notIndexed(.http(response.status))
            return result
        }
        result.digest = ContentDigest(of: response.body)
        guard Self.isHTML(contentType: response.contentType, body: response.body) else { return result }
        var markup = extractor.extract(response.body, url: url, response: .init(
            contentType: response.contentType, robotsTags: response.headers.all("X-Robots-Tag"),
            contentLanguage: response.headers.first("Content-Language")))
        if markup.warnings.contains(where: { $0.code == .notHTML }) {
            if keepMarkup { result.markup = markup }
            return result
        }
        if let renderer, case .render = RenderRule.decide(render.mode(for: url.host), markup: markup, noindex: markup.robots.forbidsIndexing(at: now)) {
            let outcome = renderer.render(url, document: RenderDocument(status: response.status, headers: response.headers, body: response.body))
            result.render = outcome
            if let html = outcome.html {
                if keepMarkup { result.staticMarkup = markup }
                // A rendered page is known by what the browser made of it: shells of one app
                // are the same bytes, their pages are not (and a shell whose data changed has).
                result.digest = ContentDigest(of: html)
                // The browser wrote the document out as UTF-8, whatever the page was sent in.
                markup = extractor.extract(html, url: url, response: .init(
                    contentType: "text/html; charset=utf-8", robotsTags: response.headers.all("X-Robots-Tag"),
                    contentLanguage: response.headers.first("Content-Language")))
            }
        }
        if keepMarkup { result.markup = markup }
        result.fingerprint = TextFingerprint(title: markup.title, text: markup.visibleText)
        result.fingerprint?.identity = Self.identity(of: markup)
        (result.links, result.droppedLinks) = admission.links(of: markup, at: url)
        if markup.robots.forbidsIndexing(at: now) {
            result.kind = .notIndexed(.noindex)
            return result
        }
        // "rel=canonical to another URL of the same site → one item under the canonical URL":
        // when the canonical is crawlable it is fetched and indexed on its own, so this copy
        // is not; when it is not (out of scope, a trap, disallowed by robots.txt), this page
        // stands for it.
        let identifier = admission.keys.key(for: ItemBuilder.identifier(for: markup, url: url))
        if identifier != url, Self.canCrawl(canonical: identifier, of: url, admission: admission, robots: robots) {
            result.kind = .notIndexed(.canonical)
            return result
        }
        let template = templates?.observe(origin: url.origin, blocks: markup.mainText.contentHashes()) ?? []
        do {
            result.kind = .indexed(
                try builder.item(for: markup, url: url, identifier: identifier, associations: associations, now: now, template: template,
                                 rendered: result.render?.html != nil))
        } catch {
            result.kind = .notIndexed(.invalidItem)
            result.detail = error.description
        }
        return result
    }

    /// Whether a page's canonical would be fetched and indexed on its own.
    static func canCrawl(canonical: WebURL, of url: WebURL, admission: LinkAdmission, robots: RobotsRules?) -> Bool {
        guard case .follow = admission.admit(canonical, from: .canonical) else { return false }
        guard canonical.origin == url.origin, let robots else { return true }
        return robots.allows(canonical)
    }

    /// HTML by its Content-Type, or, when the type is missing or generic, by its first bytes.
    /// What the page calls itself, for ``TextFingerprint/identity``: its title and main
    /// heading; its schema.org name and deep links (a deep link names the thing in the app).
    static func identity(of markup: PageMarkup) -> [UInt64] {
        var names = [markup.schema.name, markup.smartAppBanner?.appArgument].compactMap { $0 }
        names += markup.appLinks?.targets.compactMap(\.url) ?? []
        names += markup.appAlternates.map(\.href)
        names += markup.schema.deepLinks.map(\.url)
        return TextFingerprint.identity(titles: [markup.title, markup.headline].compactMap { $0 }, names: names)
    }

    static func isHTML(contentType: String?, body: [UInt8]) -> Bool {
        let essence = (contentType?.split(separator: ";").first?.trimmingASCIIWhitespace() ?? "").lowercased()
        if essence == "text/html" || essence == "application/xhtml+xml" { return true }
        guard essence.isEmpty || essence == "text/plain" || essence == "application/octet-stream" else { return false }
        let head = String(decoding: body.prefix(512), as: UTF8.self).lowercased()
        return head.contains("<!doctype html") || head.contains("<html") || head.contains("<head") || head.contains("<title")
    }
}
