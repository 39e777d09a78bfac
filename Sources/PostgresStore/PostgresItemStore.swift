import Foundation
import Items
import Postgres
import StoreSeams

/// The service's writes in multi-machine mode: into PostgreSQL's `items`, logged for
/// every node's copy (``ItemTable``).
public final class PostgresItemStore: ItemStore {
    private let session: PostgresSession

    public init(_ store: SharedStore) {
        session = store.session
    }

    public func commit(_ batch: ItemBatch, now: Date) throws -> (upserted: Int, deleted: Int) {
        try session.transaction { try ItemTable.apply(batch, now: now, on: $0) }
    }

    public func deleteAll(owner: String?) throws -> Int {
        try session.transaction { try ItemTable.deleteAll(owner: owner, on: $0) }
    }

    public func clientState(batch name: String) throws -> [UInt8]? {
        try session.run { try $0.execute("SELECT state FROM batches WHERE name = $1", [.text(name)]).first?.bytes(0) }
    }

    public func item(_ key: ItemKey) throws -> SearchableItem? {
        try session.run { try ItemTable.item(key, on: $0) }
    }

    public func keys(identifier: String, limit: Int) throws -> [ItemKey] {
        try session.run { try ItemTable.keys(identifier: identifier, limit: limit, on: $0) }
    }

    public func recordEngagement(_ key: ItemKey, impressions: Int, clicks: Int) throws {
        try session.transaction { try ItemTable.recordEngagement(key, impressions: impressions, clicks: clicks, on: $0) }
    }

    public func recordAnonymousEngagement(_ key: ItemKey, network: [UInt8], day: Int, impression: Bool, click: Bool) throws -> AnonymousEngagement {
        try session.transaction {
            try ItemTable.recordAnonymousEngagement(key, network: network, day: day, impression: impression, click: click, on: $0)
        }
    }

    /// Items in the store, by source.
    public func count() throws -> Int {
        try session.run { try $0.execute("SELECT count(*) FROM items").first?.int(0) ?? 0 }
    }
}
