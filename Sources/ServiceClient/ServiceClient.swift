import Dispatch
import Foundation
import Items
import SearchModel
import SearchlightClient
import Synchronization

/// The command line's client of a running `searchlight serve` (`search --server`, `ingest
/// --server`): the client library's ``SearchableIndex`` — the API written once — over libcurl
/// (``CurlTransport``), its calls waited for, as a command runs one step after another.
public struct ServiceClient: Sendable {
    public let index: SearchableIndex

    public init(server: String, caCertificates: String?, userAgent: String, key: String? = nil) throws(SearchlightError) {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw SearchlightError(.badRequest, "--server must be an http(s) URL, not '\(server.prefix(200))'", field: "server")
        }
        index = SearchableIndex(server: url, key: key, transport: CurlTransport(caCertificates: caCertificates, userAgent: userAgent))
    }

    /// `GET /v1/search`, asked as a local search is asked.
    public func search(_ request: SearchRequest) throws(SearchlightError) -> SearchResponse {
        let index = index
        return try Self.wait { () async throws(SearchlightError) in try await index.search(request).response }
    }

    /// The client state an ingest batch stream last committed.
    public func batchState(_ name: String) throws(SearchlightError) -> String? {
        let index = index
        return try Self.wait { () async throws(SearchlightError) in try await index.fetchLastClientState(batch: name) }
    }

    /// Items and deletions applied at once, only if the stream's state is still `expected`
    /// (compare-and-swap), which becomes `state`.
    public func commitBatch(_ name: String, items: [SearchableItem], deletions: [String], expected: String?, state: String) throws(SearchlightError) {
        var batch = index.beginBatch(named: name, expectedClientState: expected)
        batch.indexSearchableItems(items)
        batch.deleteSearchableItems(withIdentifiers: deletions)
        let index = index, ready = batch
        try Self.wait { () async throws(SearchlightError) in try await index.endBatch(ready, clientState: state) }
    }

    /// Runs `call` and waits for it on this (non-async) thread.
    private static func wait<T: Sendable>(_ call: @escaping @Sendable () async throws(SearchlightError) -> T) throws(SearchlightError) -> T {
        let outcome = Mutex<Result<T, SearchlightError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, SearchlightError>
            do throws(SearchlightError) {
                result = .success(try await call())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
