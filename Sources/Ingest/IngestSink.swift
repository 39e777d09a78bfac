import FoundationEssentials
import Items
import SearchIndex

/// Where ingest's batches go: the local index, or a running `searchlight serve`
/// (`POST /v1/batches/{name}`). Each batch carries a client state, committed with it,
/// and is taken only if the stored state is the expected one (compare-and-swap).
public protocol IngestSink: Sendable {
    /// The client state stored with the last batch under `name`; nil when there is none.
    func clientState(_ name: String) throws -> String?
    func commit(upserts: [ValidItem], deletions: [String], name: String, expected: String?, state: String) throws
    /// Items and deletions per batch.
    var batchLimit: Int { get }
    /// How long a mapped item without an `expirationDate` lives in this sink: nil (until
    /// ingest deletes it with its record) where the store allows it; the service's push
    /// format bounds every item's life, so a remote sink gives the longest it takes.
    var itemLifetime: TimeInterval? { get }
}

extension IngestSink {
    public var itemLifetime: TimeInterval? { nil }
}

/// A sink over any store that commits ``ItemBatch``es (the data folder's index, the
/// shared PostgreSQL store): batches written as the operator's, as `index add` writes, or
/// for a key owner (`ingest --owner`).
public struct IndexBatchSink: IngestSink {
    let readState: @Sendable (String) throws -> [UInt8]?
    let write: @Sendable (ItemBatch) throws -> Void
    public var batchLimit = 2000
    /// Whose items the batches write; nil for the operator.
    public var owner: String?

    public init(clientState: @escaping @Sendable (String) throws -> [UInt8]?, commit: @escaping @Sendable (ItemBatch) throws -> Void) {
        readState = clientState
        write = commit
    }

    /// A sink into `index`.
    public init(index: SearchIndex) {
        self.init(clientState: { try index.clientState(batch: $0) }, commit: { try index.commit($0) })
    }

    public func clientState(_ name: String) throws -> String? {
        try readState(name).map { String(decoding: $0, as: UTF8.self) }
    }

    public func commit(upserts: [ValidItem], deletions: [String], name: String, expected: String?, state: String) throws {
        var batch = ItemBatch(upserts: upserts, deleteIdentifiers: deletions)
        batch.owner = owner
        batch.clientStateName = name
        batch.expectedClientState = .some(expected.map { Array($0.utf8) })
        batch.clientState = Array(state.utf8)
        try write(batch)
    }
}
