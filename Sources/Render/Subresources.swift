import Fetch
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
}

/// Fetches what a rendered page's scripts ask for, under the crawl's rules.
public protocol SubresourceFetching: Sendable {
    /// A GET of `url` within `budget` (the render's bytes), synchronously.
    func fetch(_ url: WebURL, headers: [HTTPField], budget: ByteBudget) -> SubresourceAnswer
}

/// The crawl's rules for a rendered page's requests: its own client (its User-Agent, its
/// address policy checked on the address connected to, its body limit), and robots.txt for
/// each resource's origin, read once per origin and kept (up to ``maximumOrigins``).
/// Connections per host are the client's (`maximumConnectionsPerHost`).
public final class CrawlerSubresources: SubresourceFetching {
    private let client: HTTPClient
    private let productToken: String
    private let robots = Mutex<[String: RobotsRules]>([:])
    static let maximumOrigins = 1_024

    /// - Parameters:
    ///   - configuration: the crawl's fetch configuration.
    ///   - productToken: the crawler's robots.txt product token.
    ///   - known: robots.txt rules the crawl has read already, by origin.
    public init(configuration: FetchConfiguration, productToken: String, known: [String: RobotsRules] = [:]) {
        var configuration = configuration
        configuration.maximumConnectionsPerHost = min(configuration.maximumConnectionsPerHost, 2)
        client = HTTPClient(configuration: configuration)
        self.productToken = productToken
        robots.withLock { $0 = known }
    }

    deinit {
        client.shutdown(cancelInFlight: true)
    }

    public func fetch(_ url: WebURL, headers: [HTTPField], budget: ByteBudget) -> SubresourceAnswer {
        guard rules(for: url).allows(url) else { return .refused(.robots) }
        var request = FetchRequest(url: url.string, headers: headers.filter { Self.forwarded.contains($0.name.lowercased()) })
        request.budgets = [budget]
        let response = client.fetch(request)
        if let error = response.error {
            return .refused(error.kind == .refusedAddress ? .address : error.kind == .tooLarge && budget.held >= budget.limit ? .limit : .failed)
        }
        return .response(status: response.status, headers: response.headers, body: response.body)
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
