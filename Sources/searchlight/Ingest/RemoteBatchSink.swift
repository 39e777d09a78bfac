import Foundation
import Ingest
import ItemMapping
import Items
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
    /// The push format's longest life (a day short of it, so a clock ahead of the
    /// service's is no problem): mapped items stay until ingest deletes them.
    var itemLifetime: TimeInterval? { SearchableItem.Limits.lifetime - 86_400 }

    init(server: String, key: String, caCertificates: String?) throws {
        do {
            client = try ServiceClient(server: server, caCertificates: caCertificates, userAgent: UserAgent.string, key: key)
        } catch {
            throw UsageError(error.message)
        }
    }

    func clientState(_ name: String) throws -> String? {
        do {
            return try client.batchState(name)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    func commit(upserts: [ValidItem], deletions: [String], name: String, expected: String?, state: String) throws {
        do {
            try client.commitBatch(name, items: upserts.map(\.item), deletions: deletions, expected: expected, state: state)
        } catch {
            throw CommandFailure(error.message)
        }
    }
}
