import FoundationEssentials
import HTTPTypes
import JSON
import ServiceAPI
import Synchronization
import TextUtilities
import WebURL

/// The crawl's frontier as IndexNow notices reach it: `serve --indexnow` implements it over
/// the data folder's or the shared store's crawl store.
public protocol IndexNowFrontier: Sendable {
    /// Whether the crawl has visited `origin` (`scheme://host[:port]`): notices are taken for
    /// those hosts only, so a notice can neither widen the crawl nor make this server fetch
    /// from hosts it never crawled.
    func knows(origin: String) throws -> Bool
    /// Makes `urls` due at `now`, adding those the frontier does not hold yet; the crawl then
    /// fetches them under its robots.txt and politeness rules. Returns how many were added.
    func makeDue(_ urls: [WebURL], now: Date) throws -> Int
}

/// A site's key file as fetched: its text, or why there is none.
public enum IndexNowKeyFile: Sendable, Equatable {
    /// The body (the fetcher reads at most a few kilobytes of it).
    case text(String)
    /// No file: an HTTP status other than 200, an address the crawl may not reach, a timeout.
    case missing(String)
}

/// Fetches key files (`serve --indexnow` uses the crawler's client, its address rules and
/// user agent).
public protocol IndexNowKeyFetcher: Sendable {
    func fetch(_ url: WebURL) -> IndexNowKeyFile
}

/// Takes IndexNow notices for the crawl (``IndexNowSubmission``): only for hosts the crawl
/// knows, only with the key the host serves at an origin the crawl visited, within budgets,
/// then makes the URLs due at once in the frontier. Verdicts on keys are remembered for a
/// while (a site pinging every change is not fetched every time, nor is a wrong key retried
/// at once), and every budget and memory is bounded.
///
/// A key nobody has proved costs its sender only, never a verified one: notices with a key
/// not (or no longer) proved count against the sending client's network (``ClientNetwork``),
/// and so do fetches of key files for keys never proved on that host; only a key the host
/// has served spends the host's and the key's budgets. A flood of random keys can neither
/// fill the per-key buckets nor spend the host's key-file fetches, so the site's own notices
/// and its new key still pass.
public final class IndexNowDesk: Sendable {
    public struct Limits: Sendable {
        /// URLs one host's notices may make due a day (a burst of this many, refilled over a day).
        public var urlsPerHostPerDay = 10_000.0
        /// Notices per host and proved key: a burst, then this many a second. A site pinging
        /// each change as it happens sends one a second at most; what the crawl fetches is
        /// bounded by ``urlsPerHostPerDay`` whatever the notices.
        public var noticesBurst = 60.0
        public var noticesPerSecond = 1.0
        /// Key files fetched again per host, for keys the host has served before: a burst,
        /// then this many a second (1 a minute).
        public var keyFetchesBurst = 3.0
        public var keyFetchesPerSecond = 1.0 / 60
        /// Notices with a key not proved, per client network: a burst, then this many a second.
        public var unprovedNoticesBurst = 10.0
        public var unprovedNoticesPerSecond = 1.0 / 6
        /// Key files fetched for keys never proved on the host, per client network.
        public var newKeyFetchesBurst = 3.0
        public var newKeyFetchesPerSecond = 1.0 / 60
        /// How long a key the host served is trusted, and a refused one stays refused.
        public var keptFor: TimeInterval = 3600
        public var refusedFor: TimeInterval = 600
        /// Verdicts remembered at most.
        public var verdicts = 4096

        public init() {}
    }

    /// What a notice did.
    public struct Receipt: Sendable, Equatable {
        /// URLs made due.
        public var due: Int
        /// Of them, URLs the frontier did not hold before.
        public var added: Int
        /// URLs left out: of an origin (a scheme of the host) the crawl has not visited.
        public var ignored: Int

        public var json: JSONValue { ["due": JSONValue(due), "added": JSONValue(added), "ignored": JSONValue(ignored)] }
    }

    private struct VerdictKey: Hashable {
        var host: String
        var key: String
        var location: String
    }

    private struct Verdict {
        var holds: Bool
        var until: Double
        var reason: String
    }

    let frontier: any IndexNowFrontier
    let fetcher: any IndexNowKeyFetcher
    let limits: Limits
    private let urlBudget: RateLimiter
    private let noticeBudget: RateLimiter
    private let fetchBudget: RateLimiter
    private let unprovedBudget: RateLimiter
    private let newKeyFetchBudget: RateLimiter
    private let verdicts = Mutex<[VerdictKey: Verdict]>([:])

    public init(frontier: any IndexNowFrontier, fetcher: any IndexNowKeyFetcher, limits: Limits = Limits()) {
        self.frontier = frontier
        self.fetcher = fetcher
        self.limits = limits
        urlBudget = RateLimiter(burst: limits.urlsPerHostPerDay, perSecond: limits.urlsPerHostPerDay / 86_400, capacity: 10_000)
        noticeBudget = RateLimiter(burst: limits.noticesBurst, perSecond: limits.noticesPerSecond, capacity: 10_000)
        fetchBudget = RateLimiter(burst: limits.keyFetchesBurst, perSecond: limits.keyFetchesPerSecond, capacity: 10_000)
        unprovedBudget = RateLimiter(burst: limits.unprovedNoticesBurst, perSecond: limits.unprovedNoticesPerSecond, capacity: 10_000)
        newKeyFetchBudget = RateLimiter(burst: limits.newKeyFetchesBurst, perSecond: limits.newKeyFetchesPerSecond, capacity: 10_000)
    }

    /// Takes `submission` at `now` from a client of `network`, or says why not with the
    /// status the protocol names: 422 for a host the crawl does not know or a key file on an
    /// origin it has not visited, 403 for a key the host does not serve, 429 past a budget
    /// (with `Retry-After`).
    func receive(_ submission: IndexNowSubmission, from network: String = "unknown", now: Date) throws(APIError) -> Receipt {
        let seconds = now.timeIntervalSince1970
        let known: Set<String>
        do {
            known = Set(try submission.origins.filter { try frontier.knows(origin: $0) })
        } catch {
            throw APIError(503, "store-unavailable", "the crawl's store could not be read; try again")
        }
        guard !known.isEmpty else {
            throw APIError(422, "unknown-host", "this crawler does not crawl \(submission.host): notices are taken for the hosts it crawls")
        }
        // The key file is read only from an origin (scheme, host and port) the notice names and
        // the crawl has visited: never another port of the host.
        guard known.contains(submission.keyLocation.origin) else {
            throw APIError(422, "key-location-not-crawled",
                           "keyLocation must be on an origin of the notice's URLs that this crawler crawls (\(known.sorted().joined(separator: ", ")))")
        }
        if proved(submission, seconds) {
            try spend(noticeBudget, submission.host + " " + submission.key, cost: 1, seconds, "notices for this key")
        } else {
            try spend(unprovedBudget, network, cost: 1, seconds, "notices with keys not proved from your network")
        }
        try checkKey(submission, network: network, seconds)
        let kept = submission.urls.filter { known.contains($0.origin) }
        try spend(urlBudget, submission.host, cost: Double(kept.count), seconds, "URLs for \(submission.host) today")
        do {
            let added = try frontier.makeDue(kept, now: now)
            return Receipt(due: kept.count, added: added, ignored: submission.urls.count - kept.count)
        } catch {
            throw APIError(503, "store-unavailable", "the crawl's store could not be written; try again")
        }
    }

    /// Whether the host served this key at this location when last asked, and still counts.
    private func proved(_ submission: IndexNowSubmission, _ seconds: Double) -> Bool {
        let id = VerdictKey(host: submission.host, key: submission.key, location: submission.keyLocation.string)
        return verdicts.withLock { $0[id] }.map { $0.holds && $0.until > seconds } ?? false
    }

    private func spend(_ budget: RateLimiter, _ name: String, cost: Double, _ seconds: Double, _ what: String) throws(APIError) {
        let (allowed, retryAfter) = budget.allow(name, cost: cost, now: seconds)
        guard allowed else {
            var refusal = APIError(429, "too-many-requests", "too many \(what); try again later")
            if retryAfter.isFinite { refusal.headers = [HTTPField("Retry-After", String(max(1, Int(retryAfter.rounded(.up)))))] }
            throw refusal
        }
    }

    /// The key file holds the key (its whole text, whitespace and a byte-order mark aside),
    /// as last found or fetched now: fetched again for a key the host served before at the
    /// host's expense, for a key never proved at the sending network's.
    private func checkKey(_ submission: IndexNowSubmission, network: String, _ seconds: Double) throws(APIError) {
        let id = VerdictKey(host: submission.host, key: submission.key, location: submission.keyLocation.string)
        let remembered = verdicts.withLock { $0[id] }
        var verdict = remembered.flatMap { $0.until > seconds ? $0 : nil }
        if verdict == nil {
            if remembered?.holds == true {
                try spend(fetchBudget, submission.host, cost: 1, seconds, "key file fetches for \(submission.host)")
            } else {
                try spend(newKeyFetchBudget, network, cost: 1, seconds, "key file fetches for new keys from your network")
            }
            let found = Self.verdict(fetcher.fetch(submission.keyLocation), key: submission.key, location: submission.keyLocation)
            let fresh = Verdict(holds: found.holds, until: seconds + (found.holds ? limits.keptFor : limits.refusedFor), reason: found.reason)
            remember(fresh, for: id, seconds)
            verdict = fresh
        }
        if let verdict, !verdict.holds { throw APIError(403, "key-not-valid", verdict.reason) }
    }

    /// Whether `file` proves `key`, and if not, why.
    static func verdict(_ file: IndexNowKeyFile, key: String, location: WebURL) -> (holds: Bool, reason: String) {
        switch file {
        case .missing(let why):
            return (false, "no key file at \(location.string): \(why)")
        case .text(let text):
            var body = Substring(text)
            if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
            return body.trimmingASCIIWhitespace() == key ? (true, "") : (false, "the key file at \(location.string) does not hold this key")
        }
    }

    private func remember(_ verdict: Verdict, for id: VerdictKey, _ seconds: Double) {
        verdicts.withLock { verdicts in
            if verdicts[id] == nil, verdicts.count >= limits.verdicts {
                verdicts = verdicts.filter { $0.value.until > seconds }
                if verdicts.count >= limits.verdicts, let oldest = verdicts.min(by: { $0.value.until < $1.value.until })?.key {
                    verdicts[oldest] = nil
                }
            }
            verdicts[id] = verdict
        }
    }
}
