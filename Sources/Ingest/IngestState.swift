import TextUtilities
import FoundationEssentials
import SQLite

/// What ingest remembers between runs, in `ingest.sqlite` (this type owns its schema):
///
/// - `sources`: each source's database, model and mapping paths (for `resolve`), the key
///   owner its items are written for (none: the operator's), the mapping's digest, and the
///   token of the last batch the index took (its client state).
/// - `records`: per tracked row its version (`Z_OPT`, or a hash of a plain table's
///   columns) and the keys in the columns other records' to-many relationships follow,
///   as they were: after a change or delete they say which items used to include the row.
/// - `pairs`: the rows of many-to-many join tables, to see links come and go.
/// - `items`: which item each mapped row made, with a digest of its content, so an
///   unchanged item is not written again and a deleted row's item is found.
/// - `pending`: the item changes of a batch, written before it is sent and moved into
///   `items` once the index has it; a run killed after the index took a batch records it
///   on its next start, one killed before drops it (the index's client state, the last
///   batch's token, says which happened).
///
/// Record versions are written only when a run ends: a run killed half-way is repeated,
/// and item digests make the repeat write nothing the index already has.
public final class IngestState {
    let connection: SQLiteConnection
    public let path: String

    static let schema = """
        CREATE TABLE IF NOT EXISTS sources(
            name TEXT PRIMARY KEY, database TEXT NOT NULL, model TEXT, mapping TEXT NOT NULL, digest TEXT NOT NULL,
            token INTEGER NOT NULL DEFAULT 0, finished REAL, owner TEXT);
        CREATE TABLE IF NOT EXISTS records(
            source TEXT NOT NULL, tbl TEXT NOT NULL, key NOT NULL, version INTEGER NOT NULL, links TEXT,
            PRIMARY KEY(source, tbl, key)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS pairs(
            source TEXT NOT NULL, name TEXT NOT NULL, a NOT NULL, b NOT NULL, PRIMARY KEY(source, name, a, b)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS items(
            source TEXT NOT NULL, tbl TEXT NOT NULL, key NOT NULL, item TEXT NOT NULL, digest INTEGER NOT NULL, item_hash INTEGER NOT NULL,
            PRIMARY KEY(source, tbl, key)) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS items_by_id ON items(item_hash);
        CREATE TABLE IF NOT EXISTS pending(source TEXT NOT NULL, token INTEGER NOT NULL, changes BLOB NOT NULL, PRIMARY KEY(source, token));
        CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '1');
        """

    public init(path: String) throws {
        self.path = path
        connection = try SQLiteConnection(path: path, busyTimeout: 30)
        // A million records make tables and indexes of tens of megabytes, written in key
        // order but looked up and indexed by item id at random: 128 MiB of page cache keeps
        // those pages from being read again and again.
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -131072;")
        try connection.execute(Self.schema)
        let version = try connection.statement("SELECT value FROM meta WHERE key = 'schema_version'")
        guard try version.step(), version.string(0) == "1" else { throw SQLiteError(code: 26, message: "\(path): not an ingest state of version 1") }
        version.reset()
        // States made before sources had an owner: every source was the operator's.
        let columns = try connection.statement("SELECT count(*) FROM pragma_table_info('sources') WHERE name = 'owner'")
        try columns.step()
        let hasOwner = columns.int(0) > 0
        columns.reset()
        if !hasOwner { try connection.execute("ALTER TABLE sources ADD COLUMN owner TEXT") }
    }

    // MARK: sources

    public struct Source: Sendable {
        public var name: String
        public var database: String
        public var model: String?
        public var mapping: String
        public var digest: String
        public var token: Int64
        public var finished: Date?
        /// Whose items the source's records become: a key owner, or nil for the operator.
        public var owner: String?
    }

    public func source(_ name: String) throws -> Source? {
        let statement = try connection.statement("SELECT name, database, model, mapping, digest, token, finished, owner FROM sources WHERE name = ?")
        statement.bind(1, name)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return Source(
            name: statement.string(0) ?? name, database: statement.string(1) ?? "", model: statement.string(2), mapping: statement.string(3) ?? "",
            digest: statement.string(4) ?? "", token: statement.int64(5), finished: statement.optionalDouble(6).map(Date.init(timeIntervalSince1970:)),
            owner: statement.string(7))
    }

    /// Records where a source's files are and whose its items are; keeps its token and
    /// digest. A source whose items were already written for one owner cannot change owner
    /// (its items would be left behind under the old one).
    public func register(name: String, database: String, model: String?, mapping: String, owner: String? = nil) throws {
        if let existing = try source(name), existing.token > 0, existing.owner != owner {
            throw IngestState.OwnerChange(source: name, from: existing.owner, to: owner)
        }
        try connection.statement("""
            INSERT INTO sources(name, database, model, mapping, digest, owner) VALUES(?, ?, ?, ?, '', ?)
            ON CONFLICT(name) DO UPDATE SET database = excluded.database, model = excluded.model, mapping = excluded.mapping,
                owner = excluded.owner
            """).run([.text(name), .text(database), SQLiteValue(model), .text(mapping), SQLiteValue(owner)])
    }

    /// A source registered for another owner than it was ingested for.
    public struct OwnerChange: Error, CustomStringConvertible {
        public var source: String
        public var from: String?
        public var to: String?

        public var description: String {
            "source '\(source)' was ingested for \(from.map { "owner \($0)" } ?? "the operator"), not \(to.map { "owner \($0)" } ?? "the operator"); "
                + "delete its items and DATA/ingest.sqlite to ingest it for another owner"
        }
    }

    // MARK: records

    public struct Version: Sendable, Equatable {
        public var version: Int64
        public var links: [RecordKey?]
    }

    /// The versions stored for a table's rows.
    func versions(source: String, table: String) throws -> [RecordKey: Version] {
        let statement = try connection.prepare("SELECT key, version, links FROM records WHERE source = ? AND tbl = ?")
        statement.bind([.text(source), .text(table)])
        var result: [RecordKey: Version] = [:]
        while try statement.step() {
            guard let key = RecordKey.read(statement, 0) else { continue }
            result[key] = Version(version: statement.int64(1), links: Self.decodeLinks(statement.string(2)))
        }
        return result
    }

    public func hasRecords(source: String) throws -> Bool {
        let statement = try connection.statement("SELECT 1 FROM records WHERE source = ? LIMIT 1")
        statement.bind(1, source)
        defer { statement.reset() }
        return try statement.step()
    }

    static func encodeLinks(_ links: [RecordKey?]) -> String? {
        guard !links.isEmpty else { return nil }
        return links.map { key in
            switch key {
            case .integer(let value): "i" + String(value)
            case .text(let value): "t" + value
            case nil: "-"
            }
        }.joined(separator: "\u{1F}")
    }

    static func decodeLinks(_ text: String?) -> [RecordKey?] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\u{1F}", omittingEmptySubsequences: false).map { part -> RecordKey? in
            switch part.first {
            case "i": Int64(part.dropFirst()).map(RecordKey.integer)
            case "t": .text(String(part.dropFirst()))
            default: nil
            }
        }
    }

    // MARK: pairs

    public struct Pair: Sendable, Hashable {
        public var a: RecordKey
        public var b: RecordKey
    }

    func pairs(source: String, name: String) throws -> Set<Pair> {
        let statement = try connection.prepare("SELECT a, b FROM pairs WHERE source = ? AND name = ?")
        statement.bind([.text(source), .text(name)])
        var result = Set<Pair>()
        while try statement.step() {
            if let a = RecordKey.read(statement, 0), let b = RecordKey.read(statement, 1) { result.insert(Pair(a: a, b: b)) }
        }
        return result
    }

    // MARK: items

    public struct ItemEntry: Sendable, Equatable {
        public var identifier: String
        public var digest: Int64
    }

    func item(source: String, table: String, key: RecordKey) throws -> ItemEntry? {
        let statement = try connection.statement("SELECT item, digest FROM items WHERE source = ? AND tbl = ? AND key = ?")
        statement.bind([.text(source), .text(table), key.sqlite])
        defer { statement.reset() }
        guard try statement.step(), let identifier = statement.string(0) else { return nil }
        return ItemEntry(identifier: identifier, digest: statement.int64(1))
    }

    func items(source: String, table: String) throws -> [RecordKey: ItemEntry] {
        let statement = try connection.prepare("SELECT key, item, digest FROM items WHERE source = ? AND tbl = ?")
        statement.bind([.text(source), .text(table)])
        var result: [RecordKey: ItemEntry] = [:]
        while try statement.step() {
            if let key = RecordKey.read(statement, 0), let identifier = statement.string(1) {
                result[key] = ItemEntry(identifier: identifier, digest: statement.int64(2))
            }
        }
        return result
    }

    /// The row that made the item `identifier`, if any.
    func holder(source: String, identifier: String) throws -> (table: String, key: RecordKey)? {
        let statement = try connection.statement("SELECT tbl, key FROM items WHERE item_hash = ? AND source = ? AND item = ? LIMIT 1")
        statement.bind([.integer(Self.hash(identifier)), .text(source), .text(identifier)])
        defer { statement.reset() }
        guard try statement.step(), let table = statement.string(0), let key = RecordKey.read(statement, 1) else { return nil }
        return (table, key)
    }

    /// Items are found by identifier through a hash of it: an index of integers stays small
    /// enough to keep in the page cache at a million items, one of the texts did not.
    static func hash(_ identifier: String) -> Int64 {
        var digest = FNV1a()
        digest.add(identifier)
        return digest.signed
    }

    // MARK: batches

    /// One row's item after a batch: its identifier and digest, or nil when it has none.
    public struct ItemChange: Sendable {
        public var table: String
        public var key: RecordKey
        public var entry: ItemEntry?
    }

    /// Writes a batch's item changes before the batch is sent.
    func stage(source: String, token: Int64, changes: [ItemChange]) throws {
        try connection.statement("INSERT OR REPLACE INTO pending(source, token, changes) VALUES(?, ?, ?)")
            .run([.text(source), .integer(token), .blob(PendingBatch.encode(changes))])
    }

    /// The tokens of the staged batches not yet recorded, oldest first (at most two: the one
    /// being recorded and the one being sent).
    func pendingTokens(source: String) throws -> [Int64] {
        let statement = try connection.statement("SELECT token FROM pending WHERE source = ? ORDER BY token")
        statement.bind(1, source)
        defer { statement.reset() }
        var tokens: [Int64] = []
        while try statement.step() { tokens.append(statement.int64(0)) }
        return tokens
    }

    /// The index took the batch staged as `token`: its changes become the items, its token
    /// the source's.
    func applyPending(source: String, token: Int64) throws {
        try connection.transaction {
            let read = try connection.statement("SELECT changes FROM pending WHERE source = ? AND token = ?")
            read.bind([.text(source), .integer(token)])
            guard try read.step() else { return }
            let changes = PendingBatch.decode(read.blob(0) ?? [])
            read.reset()
            guard let changes else { throw SQLiteError(code: 11, message: "\(path): a staged batch of '\(source)' does not read") }
            let upsert = try connection.statement("INSERT OR REPLACE INTO items(source, tbl, key, item, digest, item_hash) VALUES(?, ?, ?, ?, ?, ?)")
            let delete = try connection.statement("DELETE FROM items WHERE source = ? AND tbl = ? AND key = ?")
            for change in changes {
                if let entry = change.entry {
                    upsert.reset()
                    try upsert.run([.text(source), .text(change.table), change.key.sqlite, .text(entry.identifier), .integer(entry.digest),
                                    .integer(Self.hash(entry.identifier))])
                } else {
                    delete.reset()
                    try delete.run([.text(source), .text(change.table), change.key.sqlite])
                }
            }
            try connection.statement("DELETE FROM pending WHERE source = ? AND token = ?").run([.text(source), .integer(token)])
            try connection.statement("UPDATE sources SET token = max(token, ?) WHERE name = ?").run([.integer(token), .text(source)])
        }
    }

    /// A staged batch the index never took.
    func discardPending(source: String, token: Int64) throws {
        try connection.statement("DELETE FROM pending WHERE source = ? AND token = ?").run([.text(source), .integer(token)])
    }

    /// Forgets which items the source made (the index no longer has them as we knew).
    func forgetItems(source: String, token: Int64) throws {
        try connection.transaction {
            try connection.statement("DELETE FROM items WHERE source = ?").run([.text(source)])
            try connection.statement("DELETE FROM records WHERE source = ?").run([.text(source)])
            try connection.statement("DELETE FROM pairs WHERE source = ?").run([.text(source)])
            try connection.statement("UPDATE sources SET token = ?, digest = '' WHERE name = ?").run([.integer(token), .text(source)])
        }
    }

    /// What a run saw, written when it ends: the rows' versions, the join tables' pairs and
    /// the mapping digest the items were made with.
    struct Outcome {
        var versions: [String: [RecordKey: Version?]] = [:]
        var addedPairs: [String: [Pair]] = [:]
        var removedPairs: [String: [Pair]] = [:]
    }

    func finish(source: String, digest: String, outcome: Outcome, now: Date) throws {
        try connection.transaction {
            let upsert = try connection.statement("INSERT OR REPLACE INTO records(source, tbl, key, version, links) VALUES(?, ?, ?, ?, ?)")
            let delete = try connection.statement("DELETE FROM records WHERE source = ? AND tbl = ? AND key = ?")
            for (table, rows) in outcome.versions {
                // In key order: B-tree inserts that follow each other are the cheap kind.
                for (key, version) in rows.sorted(by: { $0.key < $1.key }) {
                    if let version {
                        upsert.reset()
                        try upsert.run([.text(source), .text(table), key.sqlite, .integer(version.version), SQLiteValue(Self.encodeLinks(version.links))])
                    } else {
                        delete.reset()
                        try delete.run([.text(source), .text(table), key.sqlite])
                    }
                }
            }
            let addPair = try connection.statement("INSERT OR IGNORE INTO pairs(source, name, a, b) VALUES(?, ?, ?, ?)")
            let removePair = try connection.statement("DELETE FROM pairs WHERE source = ? AND name = ? AND a = ? AND b = ?")
            for (name, pairs) in outcome.addedPairs {
                for pair in pairs {
                    addPair.reset()
                    try addPair.run([.text(source), .text(name), pair.a.sqlite, pair.b.sqlite])
                }
            }
            for (name, pairs) in outcome.removedPairs {
                for pair in pairs {
                    removePair.reset()
                    try removePair.run([.text(source), .text(name), pair.a.sqlite, pair.b.sqlite])
                }
            }
            try connection.statement("UPDATE sources SET digest = ?, finished = ? WHERE name = ?")
                .run([.text(digest), .real(now.timeIntervalSince1970), .text(source)])
        }
    }
}
