import Fetch
import Foundation
import PageItems
import StoreSeams
import WebRules
import WebURL

/// What a host's own files say, as pure functions of their responses: robots.txt (RFC 9309
/// with its rules on unreachable files and cached copies), the app-association files
/// (Apple's at `/.well-known/` then the root, Android's `assetlinks.json`; no redirects for
/// either), and sitemaps.
enum HostFiles {
    enum RobotsVerdict: Sendable {
        /// RFC 9309: follow at least five redirects; the rules apply to the first authority.
        case redirect(String)
        /// The host resolves to an address the crawl may not connect to.
        case refused
        /// Unreachable or 5xx and no cached copy: nothing of the host this run, its URLs and
        /// items untouched.
        case unavailable
        /// The rules to use; `record` is the host record to save when the file was fetched
        /// now; `cached` when an older copy stood in for an unreachable file.
        case rules(RobotsRules, record: HostRecord?, cached: Bool)
    }

    static func robots(_ response: FetchResponse, hops: Int, origin: String, record: HostRecord?, now: Date, token: String) -> RobotsVerdict {
        if response.isRedirect, let target = response.redirectURL, hops < 5 { return .redirect(target) }
        if response.error?.kind == .refusedAddress { return .refused }
        let status = response.error == nil ? (response.isRedirect ? 404 : response.status) : 599
        if status >= 500 || status == 429 {
            // RFC 9309 §2.3.1.3-4: unreachable means disallow all, but a cached copy may
            // stand in for up to 30 days.
            guard let record, let cached = record.robotsStatus, cached < 500, let fetched = record.robotsFetched,
                now.timeIntervalSince(fetched) < 30 * 86_400
            else { return .unavailable }
            return .rules(rules(status: cached, body: record.robotsBody ?? [], origin: origin, token: token), record: nil, cached: true)
        }
        var updated = record ?? HostRecord(origin: origin)
        updated.robotsStatus = status
        updated.robotsBody = Array(RobotsRules.readable(response.body))
        updated.robotsFetched = now
        return .rules(rules(status: status, body: response.body, origin: origin, token: token), record: updated, cached: false)
    }

    /// The rules of a robots.txt answer: its groups for 2xx, the status's meaning otherwise.
    static func rules(status: Int, body: [UInt8], origin: String, token: String) -> RobotsRules {
        guard (200..<300).contains(status) else { return .forStatus(status) }
        return RobotsRules(parsing: body, productToken: token, robotsURL: WebURL(origin + "/robots.txt"))
    }

    enum AssociationFile: Sendable {
        case appleWellKnown, appleRoot, android

        /// Apple reads at most 128 KB of the file (uncompressed); a larger one is a failed
        /// fetch here, and Android's gets the same bound.
        static let maximumBytes = 128 * 1024

        func url(_ origin: String) -> String {
            switch self {
            case .appleWellKnown: origin + "/.well-known/apple-app-site-association"
            case .appleRoot: origin + "/apple-app-site-association"
            case .android: origin + "/.well-known/assetlinks.json"
            }
        }
    }

    enum AssociationVerdict: Sendable {
        case apple(AppSiteAssociation, body: [UInt8])
        case android(AssetLinks, body: [UInt8])
        /// Apple's file was not at `/.well-known/`: try the root.
        case tryRoot
        case none
    }

    /// No redirects: Apple and Android both reject a redirected association file.
    static func association(_ file: AssociationFile, _ response: FetchResponse) -> AssociationVerdict {
        let body = response.isSuccess ? response.body : nil
        switch file {
        case .appleWellKnown, .appleRoot:
            if let body, let parsed = AppSiteAssociation(parsing: body) { return .apple(parsed, body: body) }
            return file == .appleWellKnown ? .tryRoot : .none
        case .android:
            if let body, let parsed = AssetLinks(parsing: body) { return .android(parsed, body: body) }
            return .none
        }
    }

    struct SitemapReading: Sendable {
        var read = false
        /// URLs the sitemap lists, in the crawl's normal form and scope.
        var entries: [(url: WebURL, lastModified: Date?, changeFrequency: String?, priority: Double)] = []
        /// Sitemaps a sitemap index lists.
        var nested: [WebURL] = []
        var listed = 0
        var skipped: [SkipReason: Int] = [:]
    }

    static func sitemap(_ response: FetchResponse, url: WebURL, crossSubmit: Set<String>, admission: LinkAdmission) -> SitemapReading {
        var reading = SitemapReading()
        guard response.isSuccess else {
            // A site without a sitemap at a well-known path (tried when robots.txt names none)
            // is no error; any other failure of it, a cut body say, is counted like a listed
            // sitemap's.
            let missingFallback = Sitemap.wellKnownPaths.contains(url.path) && response.error == nil && [404, 410].contains(response.status)
            if !missingFallback { reading.skipped[.sitemap(response.error.map(SkipReason.fetch) ?? .http(response.status)), default: 0] += 1 }
            return reading
        }
        // Every sitemap a crawl reads came from its host: named in the host's robots.txt, at
        // a well-known path of its root, or listed by an index that came so.
        let sitemap = Sitemap(parsing: response.body, url: url, crossSubmitOrigins: crossSubmit, listedByHost: true)
        if sitemap.error != nil {
            // A web page answering at a well-known path is a site's "not found" page, not a
            // broken sitemap.
            let softNotFound = Sitemap.wellKnownPaths.contains(url.path) && (response.contentType ?? "").lowercased().hasPrefix("text/html")
            if !softNotFound { reading.skipped[.sitemapInvalid, default: 0] += 1 }
            return reading
        }
        reading.read = true
        for (reason, count) in sitemap.skipped { reading.skipped[.sitemap(parser: reason), default: 0] += count }
        for entry in sitemap.entries {
            if sitemap.kind == .index {
                reading.nested.append(entry.location)
                continue
            }
            reading.listed += 1
            switch admission.admit(entry.location, from: .sitemap) {
            case .follow(let key):
                reading.entries.append((key, entry.lastModified, entry.changeFrequency?.rawValue, entry.priority))
            case .drop(let reason):
                reading.skipped[reason, default: 0] += 1
            }
        }
        return reading
    }
}
