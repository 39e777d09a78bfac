/// A libpq failure, with PostgreSQL's SQLSTATE when the server sent one, so callers tell
/// failures apart by code (a lost connection, a unique violation), never by message.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No connection, or it broke.
        case connection
        /// The server refused or failed a statement.
        case statement
        /// A store URL that is not a PostgreSQL URL.
        case invalidURL = "invalid-url"
    }

    public var kind: Kind
    /// The five-character SQLSTATE (`23505` unique violation, `40001` serialization failure…).
    public var sqlState: String?
    public var message: String

    public init(_ kind: Kind, sqlState: String? = nil, _ message: String) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String { sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message }

    /// The connection is gone or the server is shutting down: reconnect and run the
    /// transaction again. Class 08 is connection exceptions; 57P01–57P03 are the server
    /// going down or not yet accepting connections.
    public var isConnectionLoss: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// A transaction that lost a race (serialization failure, deadlock): run it again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
}
