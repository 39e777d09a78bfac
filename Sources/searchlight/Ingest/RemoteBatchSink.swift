import Foundation
import Ingest
import ItemMapping
import SearchIndex
import ServiceClient

/// `ingest --server URL --key KEY`: ingest batches sent to a running `searchlight serve`
/// through `POST /v1/batches/{name}` with compare-and-swap on the client state, as an app's
/// backend feeds a shared index. The items belong to the key's owner. The service keeps a
/// pushed item a month unless told otherwise, so an item without an expiration date is
/// sent with the longest the service allows (ten years), as a record does not expire.
struct RemoteBatchSink: IngestSink {
    let client: ServiceClient
    /// The service takes at most 1,000 items and deletions per request.
    var batchLimit = 500

    init(server: String, key: String, caCertificates: String?) {
        client = ServiceClient(server: server, caCertificates: caCertificates, userAgent: UserAgent.string, key: key)
    }

    func clientState(_ name: String) throws -> String? {
        do {
            return try client.batchState(name)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    func commit(upserts: [SearchableItem], deletions: [String], name: String, expected: String?, state: String) throws {
        let lifetime = Date().addingTimeInterval(SearchableItem.Limits.lifetime - 86_400)
        let items = upserts.map { item -> SearchableItem in
            var item = item
            if item.expirationDate == nil { item.expirationDate = lifetime }
            return item
        }
        do {
            try client.commitBatch(name, items: items, deletions: deletions, expected: expected, state: state)
        } catch {
            throw CommandFailure(error.message)
        }
    }
}
