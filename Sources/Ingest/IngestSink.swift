import SearchIndex

/// Where ingest's batches go: the local index, or a running `searchlight serve`
/// (`POST /v1/batches/{name}`). Each batch carries a client state, committed with it,
/// and is taken only if the stored state is the expected one (compare-and-swap).
public protocol IngestSink {
    /// The client state stored with the last batch under `name`; nil when there is none.
    func clientState(_ name: String) throws -> String?
    func commit(upserts: [SearchableItem], deletions: [String], name: String, expected: String?, state: String) throws
    /// Items and deletions per batch.
    var batchLimit: Int { get }
}
