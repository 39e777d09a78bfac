import Dispatch
import Fetch
import Glibc
import HTTPTypes
import Synchronization
import WebRules
import WebURL

/// Why a rendered page's request was not fetched: counted per page and per run.
public enum SubresourceRefusal: String, Sendable, Hashable, CaseIterable {
    /// Images, media, fonts, style sheets, frames: what the text and markup do not need.
    case notNeeded = "not-needed"
    /// Not `http(s)`, or not a GET.
    case notAllowed = "not-allowed"
    case robots
    /// The address connected to is not one the crawl may reach (``AddressPolicy``).
    case address
    /// The page's requests or bytes passed the render's bounds.
    case limit
    /// Fetched, and failed (network error, too large…).
    case failed
}

/// What the renderer is given for one request of a rendered page.
public enum SubresourceAnswer: Sendable {
    case response(status: Int, headers: [HTTPField], body: [UInt8])
    case refused(SubresourceRefusal)

    /// The request went to the host (answered, or failed there).
    var reachedHost: Bool {
        switch self {
        case .response: true
        case .refused(let reason): reason == .failed
        }
    }
}

/// Fetches what a rendered page's scripts ask for, under the crawl's rules.
public protocol SubresourceFetching: Sendable {
    /// A GET of `url` within `budget` (the render's bytes), synchronously.
    func fetch(_ url: WebURL, headers: [HTTPField], budget: ByteBudget) -> SubresourceAnswer
}

/// The crawl's rules for a rendered page's requests: its own client (its User-Agent, its
/// address policy checked on the address connected to, its body limit), robots.txt for
/// each resource's origin, read once per origin and kept (up to ``maximumOrigins``), at most
/// 2 connections to a host, and requests to one host spaced by `spacing` seconds (the
/// crawl's `--delay`; a request that would wait longer than ``longestWait`` is not made).
public final class CrawlerSubresources: SubresourceFetching {
    private let client: HTTPClient
    private let productToken: String
    private let spacing: Double
    private let robots = Mutex<[String: RobotsRules]>([:])
    /// When each origin may next be asked.
    private let nextRequest = Mutex<[String: DispatchTime]>([:])
    static let maximumOrigins = 1_024
    static let longestWait = 5.0

    /// - Parameters:
    ///   - configuration: the crawl's fetch configuration.
    ///   - productToken: the crawler's robots.txt product token.
    ///   - known: robots.txt rules the crawl has read already, by origin.
    public init(configuration: FetchConfiguration, productToken: String, spacing: Double = 0, known: [String: RobotsRules] = [:]) {
        var configuration = configuration
        configuration.maximumConnectionsPerHost = min(configuration.maximumConnectionsPerHost, 2)
        client = HTTPClient(configuration: configuration)
        self.productToken = productToken
        self.spacing = max(0, spacing)
        robots.withLock { $0 = known }
    }

    deinit {
        client.shutdown(cancelInFlight: true)
    }

    public func fetch(_ url: WebURL, headers: [HTTPField], budget: ByteBudget) -> SubresourceAnswer {
        guard rules(for: url).allows(url) else { return .refused(.robots) }
        guard let slot = slot(for: url.origin) else { return .refused(.limit) }
        // Off the browser's reading thread (a render's own request worker): waiting is its job.
        let wait = Int64(slot.uptimeNanoseconds) - Int64(DispatchTime.now().uptimeNanoseconds)
        if wait > 0 { usleep(UInt32(wait / 1_000)) }
        var request = FetchRequest(url: url.string, headers: headers.filter { Self.forwarded.contains($0.name.lowercased()) })
        request.budgets = [budget]
        let response = client.fetch(request)
        if let error = response.error {
            return .refused(error.kind == .refusedAddress ? .address : error.kind == .tooLarge && budget.held >= budget.limit ? .limit : .failed)
        }
        return .response(status: response.status, headers: response.headers, body: response.body)
    }

    /// When a request to `origin` may be made, its turn taken; nil when that is further off
    /// than ``longestWait``.
    private func slot(for origin: String) -> DispatchTime? {
        guard spacing > 0 else { return .now() }
        return nextRequest.withLock { next -> DispatchTime? in
            let now = DispatchTime.now()
            let turn = max(now, next[origin] ?? now)
            guard turn <= now + Self.longestWait else { return nil }
            if next.count >= Self.maximumOrigins { next = next.filter { $0.value > now } }
            next[origin] = turn + spacing
            return turn
        }
    }

    /// Request headers a page's script may set that are passed on; the client sets its own
    /// User-Agent, Accept-Encoding and connection headers.
    static let forwarded: Set<String> = ["accept", "accept-language", "content-type", "referer", "x-requested-with"]

    func rules(for url: WebURL) -> RobotsRules {
        let origin = url.origin
        if let known = robots.withLock({ $0[origin] }) { return known }
        let robotsURL = origin + "/robots.txt"
        let response = client.fetch(FetchRequest(url: robotsURL))
        let rules: RobotsRules
        if response.error != nil {
            rules = response.error?.kind == .refusedAddress ? .forStatus(403) : .forStatus(503)
        } else if response.status == 200 {
            rules = RobotsRules(parsing: response.body, productToken: productToken, robotsURL: WebURL(robotsURL))
        } else {
            rules = .forStatus(response.status)
        }
        robots.withLock { cache in
            if cache.count >= Self.maximumOrigins { cache.removeAll() }
            cache[origin] = rules
        }
        return rules
    }
}
