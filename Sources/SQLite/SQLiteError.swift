import CSQLite

/// An SQLite failure: the extended result code, SQLite's message, and the statement.
/// Bound values are never part of the description, so user data stays out of logs.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_CONSTRAINT_UNIQUE`…).
    public var extendedCode: Int32
    public var message: String
    public var sql: String?

    public init(code: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedCode = code
        self.message = message ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`…).
    public var code: Int32 { extendedCode & 0xFF }

    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The file is not an SQLite database, or is damaged.
    public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    public var description: String {
        "SQLite error \(extendedCode): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "")
    }
}
