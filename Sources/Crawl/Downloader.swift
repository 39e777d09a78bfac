import Fetch

/// What fetches for a crawl: the libcurl ``HTTPClient`` in a real run, a scripted fake in
/// the engine's tests. Completions may come on any thread.
public protocol Downloader: Sendable {
    func start(_ request: FetchRequest, completion: @escaping @Sendable (FetchResponse) -> Void)
    func shutdown(cancelInFlight: Bool)
}

extension HTTPClient: Downloader {}
