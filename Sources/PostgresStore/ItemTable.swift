import Foundation
import Items
import JSON
import Postgres
import SearchIndex
import StoreSeams

/// Item writes in the shared store, inside the caller's transaction, with the rules the
/// embedded index applies (``ItemBatch``): items are (owner, identifier), the
/// operator's owner stored as `''`; a writer's deletions touch only its own items;
/// compare-and-swap client states; expired items go; engagement goes with its item. Every
/// change appends to `item_log`, which search nodes follow.
///
/// The log is ordered by taking one advisory lock for the rest of the transaction before
/// anything is appended: sequence numbers are then committed in the order they were
/// drawn, so a node that has applied up to N never later finds an N−1 committed behind
/// its back.
enum ItemTable {
    /// "SLITEMLG" in ASCII.
    static let logLock: Int64 = 0x534C_4954_454D_4C47
    static let now = "extract(epoch from clock_timestamp())"

    static func apply(_ batch: ItemBatch, now: Date, on connection: PostgresConnection) throws -> (upserted: Int, deleted: Int) {
        if let refusal = batch.refusal { throw SearchIndexError(refusal) }
        if let expected = batch.expectedClientState {
            // Two writers of one batch name queue here; the second sees the first's state.
            try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("batch:" + batch.clientStateName)])
            let current = try connection.execute("SELECT state FROM batches WHERE name = $1", [.text(batch.clientStateName)]).first?.bytes(0)
            guard current == expected else {
                throw SearchIndexError(.conflict, "the stored client state of batch '\(batch.clientStateName)' is not the expected one")
            }
        }
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        let scope = PostgresValue.text(batch.owner ?? "")
        var deleted: [ItemKey] = []
        if !batch.deleteIdentifiers.isEmpty {
            deleted += try keys(connection.execute("DELETE FROM items WHERE owner = $1 AND id = ANY($2::text[]) RETURNING owner, id",
                                                   [scope, .array(batch.deleteIdentifiers.map(Optional.some))]))
        }
        for key in batch.deleteKeys {
            deleted += try keys(connection.execute("DELETE FROM items WHERE owner = $1 AND id = $2 RETURNING owner, id",
                                                   [.text(key.storedOwner), .text(key.identifier)]))
        }
        for domain in batch.deleteDomains {
            // `a.b` and everything under it: the range ['a.b.', 'a.b/') in byte order.
            deleted += try keys(connection.execute(
                "DELETE FROM items WHERE owner = $1 AND (domain_id = $2 OR (domain_id >= $2 || '.' AND domain_id < $2 || '/')) RETURNING owner, id",
                [scope, .text(domain)]))
        }
        var touched: [ItemKey] = []
        for (id, expiration) in batch.confirmations.sorted(by: { $0.key < $1.key }) {
            guard let body = try connection.execute("SELECT body FROM items WHERE owner = $1 AND id = $2", [scope, .text(id)]).first?.string(0),
                var item = (try? JSONParser.parse(body)).flatMap(SearchableItem.init(stored:))
            else { continue }
            item.expirationDate = expiration
            try connection.execute("UPDATE items SET expires = $3, body = $4 WHERE owner = $1 AND id = $2",
                                   [scope, .text(id), .double(expiration.timeIntervalSince1970), .text(JSONWriter.string(item.storedJSON))])
            touched.append(item.key)
        }
        deleted += try keys(connection.execute("DELETE FROM items WHERE expires IS NOT NULL AND expires <= $1 RETURNING owner, id",
                                               [.double(now.timeIntervalSince1970)]))
        // The last version of a key in the batch wins; one arriving already expired
        // replaces the old version with nothing.
        var latest: [ItemKey: SearchableItem] = [:]
        for item in batch.ownedUpserts { latest[item.key] = item }
        let live = latest.values.filter { !$0.isExpired(at: now) }.sorted { $0.key < $1.key }
        for item in latest.values where item.isExpired(at: now) {
            deleted += try keys(connection.execute("DELETE FROM items WHERE owner = $1 AND id = $2 RETURNING owner, id",
                                                   [.text(item.key.storedOwner), .text(item.uniqueIdentifier)]))
        }
        if !live.isEmpty {
            try connection.execute("""
                INSERT INTO items(owner, id, domain_id, expires, updated, body, source, ingested, key_hash)
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::double precision[], $6::text[], $7::text[],
                                     $8::boolean[], $9::bigint[])
                ON CONFLICT (owner, id) DO UPDATE SET domain_id = excluded.domain_id, expires = excluded.expires,
                    updated = excluded.updated, body = excluded.body, source = excluded.source, ingested = excluded.ingested
                """, [
                .array(live.map { Optional($0.key.storedOwner) }), .array(live.map { Optional($0.uniqueIdentifier) }),
                .array(live.map(\.domainIdentifier)), .array(live.map { $0.expirationDate?.timeIntervalSince1970 }),
                .array(live.map { Optional($0.lastUpdated.timeIntervalSince1970) }),
                .array(utf8: live.map { JSONWriter.bytes($0.storedJSON) }), .array(live.map { Optional($0.source.rawValue) }),
                .array(live.map { Optional($0.record != nil) }), .array(live.map { Optional(Self.shardHash($0.key)) }),
            ])
            touched += live.map(\.key)
        }
        try forgetEngagement(of: deleted, on: connection)
        try log(touched, op: "u", on: connection)
        try log(deleted, op: "d", on: connection)
        if let state = batch.clientState {
            try connection.execute("""
                INSERT INTO batches(name, state, updated) VALUES($1, $2, $3)
                ON CONFLICT (name) DO UPDATE SET state = excluded.state, updated = excluded.updated
                """, [.text(batch.clientStateName), .bytes(state), .double(now.timeIntervalSince1970)])
        }
        return (batch.upserts.count, deleted.count)
    }

    /// Appends to the change log; the caller holds ``logLock``.
    static func log(_ keys: [ItemKey], op: String, on connection: PostgresConnection) throws {
        guard !keys.isEmpty else { return }
        try connection.execute("""
            INSERT INTO item_log(owner, id, op, at, key_hash) SELECT unnest($1::text[]), unnest($2::text[]), $3, \(Self.now), unnest($4::bigint[])
            """, [.array(keys.map { Optional($0.storedOwner) }), .array(keys.map { Optional($0.identifier) }), .text(op),
                  .array(keys.map { Optional(shardHash($0)) })])
    }

    /// ``Shard/hash(of:)`` as PostgreSQL's signed bigint holds it.
    static func shardHash(_ key: ItemKey) -> Int64 { Int64(bitPattern: Shard.hash(of: key)) }

    /// Engagement never outlives its item: an identifier used again starts afresh.
    private static func forgetEngagement(of keys: [ItemKey], on connection: PostgresConnection) throws {
        guard !keys.isEmpty else { return }
        let owners = PostgresValue.array(keys.map { Optional($0.storedOwner) })
        let ids = PostgresValue.array(keys.map { Optional($0.identifier) })
        for table in ["engagement", "engagement_networks"] {
            try connection.execute("DELETE FROM \(table) t USING unnest($1::text[], $2::text[]) AS k(owner, id) WHERE t.owner = k.owner AND t.id = k.id",
                                   [owners, ids])
        }
    }

    static func deleteAll(owner: String?, on connection: PostgresConnection) throws -> Int {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        let removed = try keys(owner.map { try connection.execute("DELETE FROM items WHERE owner = $1 RETURNING owner, id", [.text($0)]) }
            ?? connection.execute("DELETE FROM items RETURNING owner, id"))
        try forgetEngagement(of: removed, on: connection)
        try log(removed, op: "d", on: connection)
        return removed.count
    }

    /// Adds a key's impressions and clicks to an existing item's engagement.
    static func recordEngagement(_ key: ItemKey, impressions: Int, clicks: Int, on connection: PostgresConnection) throws {
        let added = try connection.execute("""
            INSERT INTO engagement(owner, id, impressions, clicks)
            SELECT $1, $2, $3, $4 WHERE EXISTS (SELECT 1 FROM items WHERE owner = $1 AND id = $2)
            ON CONFLICT (owner, id) DO UPDATE SET impressions = engagement.impressions + excluded.impressions,
                clicks = engagement.clicks + excluded.clicks
            """, [.text(key.storedOwner), .text(key.identifier), .int(Int64(max(0, impressions))), .int(Int64(max(0, clicks)))]).affected
        guard added > 0 else { return }
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        try log([key], op: "e", on: connection)
    }

    /// One network's anonymous impression and click, by the rules of
    /// ``SearchIndex/recordAnonymousEngagement(_:network:day:impression:click:)``.
    static func recordAnonymousEngagement(_ key: ItemKey, network: [UInt8], day: Int, impression: Bool, click: Bool,
                                          on connection: PostgresConnection) throws -> AnonymousEngagement
    {
        let owner = PostgresValue.text(key.storedOwner)
        let id = PostgresValue.text(key.identifier)
        // The item's row, locked: two reports from one network queue here.
        guard try connection.execute("SELECT 1 FROM items WHERE owner = $1 AND id = $2 FOR UPDATE", [owner, id]).first != nil else {
            return AnonymousEngagement(impression: false, click: false)
        }
        let row = try connection.execute("SELECT impression_day, click_day FROM engagement_networks WHERE owner = $1 AND id = $2 AND network = $3",
                                         [owner, id, .bytes(network)]).first
        let impressionDay = row?.int(0) ?? Int.min
        let clickDay = row?.int(1) ?? Int.min
        let countsImpression = impression && impressionDay < day
        let seen = countsImpression ? day : impressionDay
        let countsClick = click && clickDay < day && seen >= day - 1
        guard countsImpression || countsClick else { return AnonymousEngagement(impression: false, click: false) }
        try connection.execute("""
            INSERT INTO engagement_networks(owner, id, network, impression_day, click_day) VALUES($1, $2, $3, $4, $5)
            ON CONFLICT (owner, id, network) DO UPDATE SET impression_day = excluded.impression_day,
                click_day = coalesce(excluded.click_day, engagement_networks.click_day)
            """, [owner, id, .bytes(network), .int(Int64(seen)), countsClick ? .int(Int64(day)) : .null])
        try connection.execute("""
            INSERT INTO engagement(owner, id, anonymous_impressions, anonymous_clicks, anonymous_networks) VALUES($1, $2, $3, $4, $5)
            ON CONFLICT (owner, id) DO UPDATE SET anonymous_impressions = engagement.anonymous_impressions + excluded.anonymous_impressions,
                anonymous_clicks = engagement.anonymous_clicks + excluded.anonymous_clicks,
                anonymous_networks = engagement.anonymous_networks + excluded.anonymous_networks
            """, [owner, id, .int(countsImpression ? 1 : 0), .int(countsClick ? 1 : 0), .int(row == nil ? 1 : 0)])
        try connection.execute("DELETE FROM engagement_networks WHERE impression_day < $1",
                               [.int(Int64(day - SearchIndex.anonymousEngagementRetentionDays))])
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        try log([key], op: "e", on: connection)
        return AnonymousEngagement(impression: countsImpression, click: countsClick)
    }

    static func item(_ key: ItemKey, on connection: PostgresConnection) throws -> SearchableItem? {
        guard let body = try connection.execute("SELECT body FROM items WHERE owner = $1 AND id = $2",
                                                [.text(key.storedOwner), .text(key.identifier)]).first?.string(0)
        else { return nil }
        return (try? JSONParser.parse(body)).flatMap(SearchableItem.init(stored:))
    }

    static func keys(identifier: String, limit: Int, on connection: PostgresConnection) throws -> [ItemKey] {
        try keys(connection.execute("SELECT owner, id FROM items WHERE id = $1 ORDER BY owner LIMIT $2", [.text(identifier), .int(Int64(limit))]))
    }

    /// The (owner, id) pairs of a result's first two columns.
    private static func keys(_ result: PostgresResult) -> [ItemKey] {
        result.rows.compactMap { row in row.string(1).map { ItemKey(owner: ItemKey.owner(stored: row.string(0)), identifier: $0) } }
    }
}
