import Items
import SQLite

/// The counts BM25 needs, kept in `meta` and updated by every write in its transaction:
/// live documents and their total length in tokens.
struct IndexStatistics {
    var documents: Int
    var tokens: Int

    static func read(_ connection: SQLiteConnection) throws -> IndexStatistics {
        let statement = try connection.statement("SELECT key, value FROM meta WHERE key IN ('documents', 'tokens')")
        var stats = IndexStatistics(documents: 0, tokens: 0)
        while try statement.step() {
            let value = Int(statement.string(1) ?? "") ?? 0
            if statement.string(0) == "documents" { stats.documents = value } else { stats.tokens = value }
        }
        return stats
    }

    /// Adds (or with negative values removes) documents and tokens.
    static func add(documents: Int, tokens: Int, _ connection: SQLiteConnection) throws {
        guard documents != 0 || tokens != 0 else { return }
        try connection.statement("""
            INSERT INTO meta(key, value) VALUES('documents', ?1), ('tokens', ?2)
            ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)
            """).run([.integer(Int64(documents)), .integer(Int64(tokens))])
    }
}
