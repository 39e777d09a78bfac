import FoundationEssentials
import Items
import SQLite
import SearchModel

extension SearchIndex {
    /// Commits a batch in one transaction — items, their postings as a new segment, and
    /// the counts — purging expired items on the way; then merges segments if a level is
    /// full (each merge its own transaction).
    @discardableResult
    public func commit(_ batch: ItemBatch, now: Date = Date()) throws(SearchIndexError) -> (upserted: Int, deleted: Int) {
        if let refusal = batch.refusal { throw SearchIndexError(refusal) }
        return try withConnectionAndTokenizer { connection, tokenizer in
            let result = try connection.transaction {
                if let expected = batch.expectedClientState {
                    let current = try Self.clientState(batch.clientStateName, connection)
                    guard current == expected else {
                        throw SearchIndexError.conflict("the stored client state of batch '\(batch.clientStateName)' is not the expected one")
                    }
                }
                var writer = IndexWriter(connection: connection, tokenizer: tokenizer)
                let scope = SQLiteValue.text(batch.owner ?? "")
                var deleted = 0
                for id in batch.deleteIdentifiers {
                    deleted += try writer.remove(where: "owner = ?1 AND uid = ?2", [scope, .text(id)]).count
                }
                for key in batch.deleteKeys {
                    deleted += try writer.remove(where: "owner = ?1 AND uid = ?2", [.text(key.storedOwner), .text(key.identifier)]).count
                }
                for domain in batch.deleteDomains {
                    // `a.b` and everything under `a.b.`: '/' is the character after '.', so
                    // the range ['a.b.', 'a.b/') holds exactly the identifiers below "a.b.".
                    deleted += try writer.remove(where: "owner = ?1 AND (domain_id = ?2 OR (domain_id >= ?2 || '.' AND domain_id < ?2 || '/'))",
                                                 [scope, .text(domain)]).count
                }
                // A later expiration changes no answer; an earlier one may (a cached answer is
                // not served past its results' expirations), so only that is logged.
                let current = try connection.statement("SELECT rowid, expires FROM items WHERE owner = ? AND uid = ?")
                let confirm = try connection.statement("UPDATE items SET expires = ? WHERE rowid = ?")
                for (id, expiration) in batch.confirmations.sorted(by: { $0.key < $1.key }) {
                    current.reset()
                    current.bind([scope, .text(id)])
                    guard try current.step() else { continue }
                    let rowid = current.int64(0)
                    let earlier = current.optionalDouble(1).map { expiration.timeIntervalSince1970 < $0 } ?? true
                    current.reset()
                    try confirm.run([.real(expiration.timeIntervalSince1970), .integer(rowid)])
                    if earlier { writer.changed(rowid: rowid) }
                }
                deleted += try writer.remove(where: "expires IS NOT NULL AND expires <= ?1", [.real(now.timeIntervalSince1970)]).count
                // The last version of a key in the batch wins; one arriving already expired
                // replaces the old version with nothing (and takes its engagement with it).
                let upserts = batch.ownedUpserts
                var latest: [ItemKey: Int] = [:]
                for (index, item) in upserts.enumerated() { latest[item.key] = index }
                for (index, item) in upserts.enumerated() where latest[item.key] == index {
                    let expired = item.isExpired(at: now)
                    try writer.remove(where: "owner = ?1 AND uid = ?2", [.text(item.key.storedOwner), .text(item.uniqueIdentifier)],
                                      keepingEngagement: !expired)
                    if !expired { try writer.insert(item) }
                }
                if let state = batch.clientState {
                    try connection.statement("INSERT INTO batches(name, state, updated) VALUES(?, ?, ?) ON CONFLICT(name) DO UPDATE SET state = excluded.state, updated = excluded.updated")
                        .run([.text(batch.clientStateName), .blob(state), .real(now.timeIntervalSince1970)])
                }
                try writer.finish()
                return (batch.upserts.count, deleted)
            }
            try IndexWriter.mergeSegments(connection)
            return result
        }
    }

    /// Writes the operator's items, each held to the item contract under `policy`
    /// (``ItemBatch/init(validating:as:now:)``); the first that breaks a rule refuses the write.
    public func upsert(_ items: [SearchableItem], as policy: SearchableItem.Policy = .relayed, now: Date = Date()) throws(SearchIndexError) {
        let batch: ItemBatch
        do {
            batch = try ItemBatch(validating: items, as: policy, now: now)
        } catch {
            throw .invalidItem(error.description)
        }
        try commit(batch, now: now)
    }

    /// Deletes the operator's items by unique identifier; returns how many existed.
    @discardableResult
    public func delete(identifiers: [String]) throws(SearchIndexError) -> Int {
        try commit(ItemBatch(deleteIdentifiers: identifiers)).deleted
    }

    /// Deletes every item of the operator whose domain identifier is `domain` or below it
    /// (`a.b` removes `a.b` and `a.b.c`, not `a.bc`).
    @discardableResult
    public func delete(domainIdentifiers: [String]) throws(SearchIndexError) -> Int {
        try commit(ItemBatch(deleteDomains: domainIdentifiers)).deleted
    }

    /// Deletes every item of every owner, or every item of one key owner.
    @discardableResult
    public func deleteAll(owner: String? = nil) throws(SearchIndexError) -> Int {
        try withConnectionAndTokenizer { connection, tokenizer in
            try connection.transaction {
                var writer = IndexWriter(connection: connection, tokenizer: tokenizer)
                let removed = try owner.map { try writer.remove(where: "owner = ?1", [.text($0)]) } ?? writer.remove(where: "1", [])
                try writer.finish()
                return removed.count
            }
        }
    }

    /// Removes expired items; returns how many.
    @discardableResult
    public func purgeExpired(now: Date = Date()) throws(SearchIndexError) -> Int {
        try commit(ItemBatch(), now: now).deleted
    }

    /// The client state stored with the last committed batch of that name.
    public func clientState(batch name: String = "default") throws(SearchIndexError) -> [UInt8]? {
        try withConnection { try Self.clientState(name, $0) }
    }

    static func clientState(_ name: String, _ connection: SQLiteConnection) throws -> [UInt8]? {
        let statement = try connection.statement("SELECT state FROM batches WHERE name = ?")
        statement.bind(1, name)
        return try statement.step() ? statement.blob(0) : nil
    }
}
