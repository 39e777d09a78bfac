import Fetch
import Service
import WebURL

/// Fetches IndexNow key files with the crawler's client: its user agent and address rules
/// (public addresses only unless `--allow-private`), at most ``maximumBytes`` of the body,
/// ``timeout`` seconds, and no redirect: a key file is read where `keyLocation` says, so an
/// open redirect of the site (or one to another port) proves nothing.
final class CrawlerKeyFetcher: IndexNowKeyFetcher {
    /// A key is at most 128 characters; a file much larger is not a key file.
    static let maximumBytes = 4096
    static let timeout = 10.0

    private let client: HTTPClient

    /// `resolve`: curl's `HOST:PORT:ADDRESS` entries (`serve --resolve`), as the crawl takes them.
    init(allowPrivateAddresses: Bool, resolve: [String] = []) {
        var configuration = FetchConfiguration(userAgent: UserAgent.string)
        configuration.timeout = Self.timeout
        configuration.connectTimeout = 5
        configuration.maximumBodyBytes = Self.maximumBytes
        configuration.maximumConnections = 8
        configuration.addressPolicy = allowPrivateAddresses ? .any : .publicOnly
        configuration.resolve = resolve
        client = HTTPClient(configuration: configuration)
    }

    /// One request, no redirect followed. A failure is told by its kind only (its message
    /// may name addresses the site should not learn from this server).
    func fetch(_ url: WebURL) -> IndexNowKeyFile {
        let response = client.fetch(FetchRequest(url: url.string))
        if let error = response.error { return .missing(error.reason) }
        if response.isRedirect { return .missing("HTTP \(response.status): a key file must be served at its keyLocation, without a redirect") }
        guard response.status == 200 else { return .missing("HTTP \(response.status)") }
        return .text(String(decoding: response.body, as: UTF8.self))
    }

    deinit {
        client.shutdown(cancelInFlight: true)
    }
}
