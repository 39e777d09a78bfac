import FoundationEssentials
import Ingest
import SearchIndex
import Service

/// Ingest batches into the data folder's index, or the shared PostgreSQL store
/// (`--store`), as the operator's writes (like `index add`).
struct ItemStoreSink: IngestSink {
    let store: any ItemStore
    var batchLimit = 2000

    func clientState(_ name: String) throws -> String? {
        try store.clientState(batch: name).map { String(decoding: $0, as: UTF8.self) }
    }

    func commit(upserts: [SearchableItem], deletions: [String], name: String, expected: String?, state: String) throws {
        var batch = SearchIndex.Batch(upserts: upserts, deleteIdentifiers: deletions)
        batch.clientStateName = name
        batch.expectedClientState = .some(expected.map { Array($0.utf8) })
        batch.clientState = Array(state.utf8)
        try store.commit(batch, now: Date())
    }
}
