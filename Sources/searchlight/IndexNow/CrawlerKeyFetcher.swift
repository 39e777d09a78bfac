import Fetch
import Service
import WebURL

/// Fetches IndexNow key files with the crawler's client: its user agent and address rules
/// (public addresses only unless `--allow-private`), at most ``maximumBytes`` of the body,
/// ``timeout`` seconds, and redirects only within the key's host (an `http` → `https` move).
final class CrawlerKeyFetcher: IndexNowKeyFetcher {
    /// A key is at most 128 characters; a file much larger is not a key file.
    static let maximumBytes = 4096
    static let timeout = 10.0
    static let maximumRedirects = 2

    private let client: HTTPClient

    init(allowPrivateAddresses: Bool) {
        var configuration = FetchConfiguration(userAgent: UserAgent.string)
        configuration.timeout = Self.timeout
        configuration.connectTimeout = 5
        configuration.maximumBodyBytes = Self.maximumBytes
        configuration.maximumConnections = 8
        configuration.addressPolicy = allowPrivateAddresses ? .any : .publicOnly
        client = HTTPClient(configuration: configuration)
    }

    /// Hop by hop rather than `HTTPClient.fetch(_:maximumRedirects:)`, which follows a
    /// redirect anywhere: a hop off the key's host is a missing file, never fetched. A
    /// failure is told by its kind only (its message may name addresses the site should
    /// not learn from this server).
    func fetch(_ url: WebURL) -> IndexNowKeyFile {
        var next = url
        for _ in 0...Self.maximumRedirects {
            let response = client.fetch(FetchRequest(url: next.string))
            if let error = response.error { return .missing(error.reason) }
            if response.isRedirect, let location = response.redirectURL.flatMap({ WebURL($0) }), location.host == url.host {
                next = location
                continue
            }
            guard response.status == 200 else { return .missing("HTTP \(response.status)") }
            return .text(String(decoding: response.body, as: UTF8.self))
        }
        return .missing("more than \(Self.maximumRedirects) redirects")
    }

    deinit {
        client.shutdown(cancelInFlight: true)
    }
}
