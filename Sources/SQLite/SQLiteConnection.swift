import CSQLite

/// One SQLite connection, owning its `sqlite3` handle and a cache of prepared statements.
/// <https://www.sqlite.org/c3ref/open.html>
///
/// Not thread-safe: use a connection from one thread at a time (the owner serialises).
public final class SQLiteConnection {
    public let path: String
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    public struct OpenMode: Sendable {
        var flags: Int32
        public static let readWrite = OpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        public static let readWriteExisting = OpenMode(flags: SQLITE_OPEN_READWRITE)
        public static let readOnly = OpenMode(flags: SQLITE_OPEN_READONLY)
    }

    /// Set once, before the process's first connection opens: the unix VFS advises the
    /// kernel that what it maps of a database (`PRAGMA mmap_size`) is read at random
    /// (`sl_sqlite_map_files_random`). The first search of a 1M-item index on a cold page cache
    /// took ~300 ms without it, its 70 page faults each reading 8 MB (BENCHMARKS.md, issue 58).
    private static let mapsAdvisedRandom: Int32 = sl_sqlite_map_files_random()

    /// Opens (or creates) a database; `busyTimeout` is how long a statement waits for a lock.
    public init(path: String, mode: OpenMode = .readWrite, busyTimeout: Double = 5) throws(SQLiteError) {
        _ = Self.mapsAdvisedRandom
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, mode.flags | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            // > Whether or not an error occurs when it is opened, resources associated with
            // > the database connection handle should be released by passing it to sqlite3_close().
            let message = handle.map { String(cString: sqlite3_errmsg($0)) }
            sqlite3_close(handle)
            throw SQLiteError(code: code, message: message)
        }
        self.path = path
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Int32(busyTimeout * 1000))
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    public var lastError: SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) }
            sqlite3_free(errorMessage)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// A prepared statement, cached by its text; reset and unbound, ready to use.
    public func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Resets every cached statement that is still running, such as one stepped only to
    /// its first row. A running statement keeps its read transaction — and so an old
    /// snapshot of a WAL database, blind to other connections' commits — open until it
    /// is reset; owners call this when an operation ends.
    public func finishStatements() {
        for statement in statements.values where sqlite3_stmt_busy(statement.handle) != 0 { statement.reset() }
    }

    /// A statement that is not cached (for one-off or dynamically built SQL).
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ kind: String = "IMMEDIATE", _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind)")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var totalChanges: Int { Int(sqlite3_total_changes(handle)) }
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}
