import Foundation
import JSON
import Postgres
import SearchIndex

/// Item writes in the shared store, inside the caller's transaction, with the rules the
/// embedded index applies (``SearchIndex/Batch``): compare-and-swap client states, an owner
/// may not replace another's item or one no key wrote, an owner's deletions touch only its
/// items, expired items go. Every change appends to `item_log`, which search nodes follow.
///
/// The log is ordered by taking one advisory lock for the rest of the transaction before
/// ownership is read and anything appended: sequence numbers are then committed in the
/// order they were drawn, so a node that has applied up to N never later finds an N−1
/// committed behind its back.
enum ItemTable {
    /// "SLITEMLG" in ASCII.
    static let logLock: Int64 = 0x534C_4954_454D_4C47
    static let now = "extract(epoch from clock_timestamp())"

    static func apply(_ batch: SearchIndex.Batch, now: Date, on connection: PostgresConnection) throws -> (upserted: Int, deleted: Int) {
        if let state = batch.clientState, state.count > SearchIndex.maximumClientStateBytes {
            throw SearchIndexError(.invalidItem, "client state is \(state.count) bytes; at most \(SearchIndex.maximumClientStateBytes) are kept")
        }
        if let expected = batch.expectedClientState {
            // Two writers of one batch name queue here; the second sees the first's state.
            try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("batch:" + batch.clientStateName)])
            let current = try connection.execute("SELECT state FROM batches WHERE name = $1", [.text(batch.clientStateName)]).first?.bytes(0)
            guard current == expected else {
                throw SearchIndexError(.conflict, "the stored client state of batch '\(batch.clientStateName)' is not the expected one")
            }
        }
        // Taken before ownership is read, so two owners pushing one new identifier at once
        // cannot both find it free.
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        if let owner = batch.owner, !batch.upserts.isEmpty {
            let ids = batch.upserts.map(\.uniqueIdentifier)
            let rows = try connection.execute("SELECT id, owner FROM items WHERE id = ANY($1::text[])", [.array(ids.map(Optional.some))])
            var owners: [String: String?] = [:]
            for row in rows.rows { owners[row.string(0) ?? ""] = row.string(1) }
            for (index, item) in batch.upserts.enumerated() {
                if let existing = owners[item.uniqueIdentifier], existing != owner {
                    throw SearchIndexError(.forbidden, "items[\(index)]: the item \(item.uniqueIdentifier) belongs to another owner")
                }
            }
        }
        let ownerClause = batch.owner == nil ? "" : " AND owner = $2"
        let ownerValue: [PostgresValue] = batch.owner.map { [.text($0)] } ?? []
        var deleted: [String] = []
        if !batch.deleteIdentifiers.isEmpty {
            deleted += try ids(connection.execute("DELETE FROM items WHERE id = ANY($1::text[])" + ownerClause + " RETURNING id",
                                                  [.array(batch.deleteIdentifiers.map(Optional.some))] + ownerValue))
        }
        for domain in batch.deleteDomains {
            // `a.b` and everything under it: the range ['a.b.', 'a.b/') in byte order.
            deleted += try ids(connection.execute(
                "DELETE FROM items WHERE (domain_id = $1 OR (domain_id >= $1 || '.' AND domain_id < $1 || '/'))" + ownerClause + " RETURNING id",
                [.text(domain)] + ownerValue))
        }
        var touched: [String] = []
        for (id, expiration) in batch.confirmations.sorted(by: { $0.key < $1.key }) {
            guard let body = try connection.execute("SELECT body FROM items WHERE id = $1", [.text(id)]).first?.string(0),
                var item = (try? JSONParser.parse(body)).flatMap(SearchableItem.init(stored:))
            else { continue }
            item.expirationDate = expiration
            try connection.execute("UPDATE items SET expires = $2, body = $3 WHERE id = $1",
                                   [.text(id), .double(expiration.timeIntervalSince1970), .text(JSONWriter.string(item.storedJSON))])
            touched.append(id)
        }
        deleted += try ids(connection.execute("DELETE FROM items WHERE expires IS NOT NULL AND expires <= $1 RETURNING id",
                                              [.double(now.timeIntervalSince1970)]))
        // The last version of an identifier in the batch wins; one arriving already expired
        // replaces the old version with nothing.
        var latest: [String: SearchableItem] = [:]
        for item in batch.upserts { latest[item.uniqueIdentifier] = item }
        let live = latest.values.filter { !$0.isExpired(at: now) }.sorted { $0.uniqueIdentifier < $1.uniqueIdentifier }
        let dead = latest.values.filter { $0.isExpired(at: now) }.map(\.uniqueIdentifier)
        if !dead.isEmpty {
            deleted += try ids(connection.execute("DELETE FROM items WHERE id = ANY($1::text[]) RETURNING id", [.array(dead.map(Optional.some))]))
        }
        if !live.isEmpty {
            try connection.execute("""
                INSERT INTO items(id, owner, domain_id, expires, updated, body, source)
                SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::double precision[], $6::text[], $7::text[])
                ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, domain_id = excluded.domain_id, expires = excluded.expires,
                    updated = excluded.updated, body = excluded.body, source = excluded.source
                """, [
                .array(live.map { Optional($0.uniqueIdentifier) }), .array(live.map(\.owner)), .array(live.map(\.domainIdentifier)),
                .array(live.map { $0.expirationDate?.timeIntervalSince1970 }), .array(live.map { Optional($0.lastUpdated.timeIntervalSince1970) }),
                .array(live.map { Optional(JSONWriter.string($0.storedJSON)) }), .array(live.map { Optional($0.source.rawValue) }),
            ])
            touched += live.map(\.uniqueIdentifier)
        }
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
    static func log(_ ids: [String], op: String, on connection: PostgresConnection) throws {
        guard !ids.isEmpty else { return }
        try connection.execute("INSERT INTO item_log(id, op, at) SELECT unnest($1::text[]), $2, \(Self.now)",
                               [.array(ids.map(Optional.some)), .text(op)])
    }

    static func deleteAll(owner: String?, on connection: PostgresConnection) throws -> Int {
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        let removed = try ids(owner.map { try connection.execute("DELETE FROM items WHERE owner = $1 RETURNING id", [.text($0)]) }
            ?? connection.execute("DELETE FROM items RETURNING id"))
        try log(removed, op: "d", on: connection)
        return removed.count
    }

    static func recordEngagement(itemID: String, impressions: Int, clicks: Int, on connection: PostgresConnection) throws {
        try connection.execute("""
            INSERT INTO engagement(id, impressions, clicks) VALUES($1, $2, $3)
            ON CONFLICT (id) DO UPDATE SET impressions = engagement.impressions + excluded.impressions, clicks = engagement.clicks + excluded.clicks
            """, [.text(itemID), .int(Int64(impressions)), .int(Int64(clicks))])
        try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int(logLock)])
        try log([itemID], op: "e", on: connection)
    }

    static func item(_ id: String, on connection: PostgresConnection) throws -> SearchableItem? {
        guard let body = try connection.execute("SELECT body FROM items WHERE id = $1", [.text(id)]).first?.string(0) else { return nil }
        return (try? JSONParser.parse(body)).flatMap(SearchableItem.init(stored:))
    }

    private static func ids(_ result: PostgresResult) -> [String] { result.rows.compactMap { $0.string(0) } }
}
