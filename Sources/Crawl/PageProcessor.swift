import Fetch
import Foundation
import Markup
import SearchIndex
import TextUtilities
import WebRules
import WebURL

/// Turns one fetched response into what the crawl does with it: an item to index or to
/// delete, links to follow, a redirect to queue, or a reason it was skipped, plus the
/// WARC records. Pure apart from the clock: it runs on any extraction thread.
struct PageProcessor: Sendable {
    let extractor = MarkupExtractor()
    var builder: ItemBuilder
    let keys: FrontierKey
    let scope: CrawlScope

    struct HostContext: Sendable {
        var association: AppSiteAssociation?
        var assetLinks: AssetLinks?
    }

    struct Result: Sendable {
        enum Kind: Sendable {
            /// Index this item (its id may differ from the URL: the canonical).
            case indexed(SearchableItem)
            /// Fetched, nothing to index; the reason is counted (`noindex`, `not-html`, `http-403`…).
            case notIndexed(reason: String)
            /// 304: unchanged since the last fetch.
            case notModified
            /// 3xx to this target.
            case redirect(WebURL)
            /// 404/410.
            case gone
            /// A transient failure, tried again later (timeout, 5xx, connection errors); a 503
            /// also asks the host to be left alone for `backOff` seconds.
            case failed(reason: String, backOff: TimeInterval? = nil)
            /// 429: the host asks to slow down, for this long.
            case throttled(retryAfter: TimeInterval)
            /// The fetch was refused or cut for a reason that will not change by retrying.
            case refused(reason: String)
        }

        var entry: Frontier.Entry
        var kind: Kind
        var status: Int
        var links: [WebURL] = []
        /// Links not followed, by reason (`out-of-scope`, trap reasons).
        var droppedLinks: [String: Int] = [:]
        var digest: ContentDigest?
        var warc: [UInt8] = []
        /// The response without its body, for a WARC revisit record.
        var head: FetchResponse?
        var bytes: Int
        var etag: String?
        var lastModified: String?
        var warnings = 0
    }

    func process(_ response: FetchResponse, entry: Frontier.Entry, host: HostContext, writesWARC: Bool, now: Date) -> Result {
        let url = entry.url
        var result = Result(entry: entry, kind: .notIndexed(reason: "unknown"), status: response.status, bytes: response.body.count,
                            etag: response.headers.first("ETag"), lastModified: response.headers.first("Last-Modified"))
        if let error = response.error {
            switch error.reason {
            case "too-large", "refused-address", "invalid-url", "redirect-loop", "bad-encoding": result.kind = .refused(reason: error.reason)
            default: result.kind = .failed(reason: error.reason)
            }
            return result
        }
        if writesWARC, response.status != 304 {
            let digest = ContentDigest(of: response.body)
            result.digest = digest
            result.warc = WARCWriter.records(for: response, url: url.string, digest: digest, duplicateOf: nil)
            var head = response
            head.body = []
            result.head = head
        }
        switch response.status {
        case 200..<300:
            break
        case 304:
            result.kind = .notModified
            return result
        case 300..<400:
            if let location = response.redirectURL.flatMap(WebURL.init) {
                result.kind = .redirect(keys.key(for: location))
            } else {
                result.kind = .notIndexed(reason: "redirect-without-location")
            }
            return result
        case 404, 410:
            result.kind = .gone
            return result
        case 429:
            result.kind = .throttled(retryAfter: Self.retryAfter(response.headers.first("Retry-After"), now: now) ?? 60)
            return result
        case 503:
            result.kind = .failed(reason: "http-503", backOff: Self.retryAfter(response.headers.first("Retry-After"), now: now) ?? 60)
            return result
        case 500..<600:
            result.kind = .failed(reason: "http-\(response.status)")
            return result
        default:
            result.kind = .notIndexed(reason: "http-\(response.status)")
            return result
        }
        if result.digest == nil { result.digest = ContentDigest(of: response.body) }
        guard Self.isHTML(contentType: response.contentType, body: response.body) else {
            result.kind = .notIndexed(reason: "not-html")
            return result
        }
        let markup = extractor.extract(response.body, url: url, response: .init(
            contentType: response.contentType, robotsTags: response.headers.all("X-Robots-Tag"),
            contentLanguage: response.headers.first("Content-Language")))
        result.warnings = markup.warnings.count
        if markup.warnings.contains(where: { $0.code == .notHTML }) {
            result.kind = .notIndexed(reason: "not-html")
            return result
        }
        if !markup.robots.nofollow {
            var seen = Set<String>()
            var candidates = markup.outlinks.filter { !$0.rel.contains(.nofollow) }.map(\.url)
            if let canonical = markup.canonicalURL, canonical.withoutFragment != url { candidates.append(canonical) }
            for link in candidates {
                let key = keys.key(for: link)
                guard seen.insert(key.string).inserted else { continue }
                if let trap = URLTrap.reason(key) {
                    result.droppedLinks[trap, default: 0] += 1
                } else if !scope.contains(key) {
                    result.droppedLinks["out-of-scope", default: 0] += 1
                } else {
                    result.links.append(key)
                }
            }
        }
        if markup.robots.forbidsIndexing(at: now) {
            result.kind = .notIndexed(reason: "noindex")
            return result
        }
        // "rel=canonical to another URL of the same site → one item under the canonical URL":
        // when the canonical is crawlable it is fetched and indexed on its own, so this copy
        // is not; when it is not, this page stands for it.
        let identifier = keys.key(for: ItemBuilder.identifier(for: markup, url: url))
        if identifier != url, scope.contains(identifier), URLTrap.reason(identifier) == nil {
            result.kind = .notIndexed(reason: "canonical")
            return result
        }
        var universal: [String] = []
        if let association = host.association { universal = association.appIDs(claiming: ItemBuilder.identifier(for: markup, url: url)) }
        var item = builder.item(for: markup, url: url, universalLinkAppIDs: universal, now: now)
        if let packages = host.assetLinks?.packages, url.isHTTPS {
            for index in item.apps.indices where item.apps[index].platform == .android {
                if let package = item.apps[index].package, packages.contains(package) { item.apps[index].isUniversalLink = true }
            }
        }
        result.kind = .indexed(item)
        return result
    }

    /// HTML by its Content-Type, or, when the type is missing or generic, by its first bytes.
    static func isHTML(contentType: String?, body: [UInt8]) -> Bool {
        let essence = (contentType?.split(separator: ";").first?.trimmingASCIIWhitespace() ?? "").lowercased()
        if essence == "text/html" || essence == "application/xhtml+xml" { return true }
        guard essence.isEmpty || essence == "text/plain" || essence == "application/octet-stream" else { return false }
        let head = String(decoding: body.prefix(512), as: UTF8.self).lowercased()
        return head.contains("<!doctype html") || head.contains("<html") || head.contains("<head") || head.contains("<title")
    }

    /// `Retry-After` as seconds or an HTTP date, at most a day.
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value), seconds >= 0 { return min(seconds, 86_400) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), 86_400)
    }
}
