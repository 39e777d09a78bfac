import Synchronization

/// A connection shared by several threads, used by one at a time, with a value that
/// lives alongside it (a tokenizer session, for instance).
///
/// At the end of each use the connection's running statements are reset, so no
/// statement stopped at its first row keeps an old snapshot of a WAL database open.
public final class SerializedConnection<Companion>: @unchecked Sendable {
    // @unchecked: `connection` and `companion` are not thread-safe; they are only touched
    // inside `withConnection`, while `lock` is held, so one thread at a time uses them.
    private let lock = Mutex(())
    private let connection: SQLiteConnection
    private let companion: Companion

    public init(_ connection: SQLiteConnection, companion: Companion) {
        self.connection = connection
        self.companion = companion
    }

    public func withConnection<T>(_ body: (SQLiteConnection, Companion) throws -> T) rethrows -> T {
        try lock.withLock { _ in
            defer { connection.finishStatements() }
            return try body(connection, companion)
        }
    }
}

extension SerializedConnection where Companion == Void {
    public convenience init(_ connection: SQLiteConnection) {
        self.init(connection, companion: ())
    }
}
