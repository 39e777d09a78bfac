import SQLite

/// Why the index could not do what was asked. A struct with static values, so kinds can
/// be added; ``reason`` is a stable label (API error codes use it).
public struct SearchIndexError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var message: String
    /// True when the caller's input was at fault (a bad query, a stale client state),
    /// not the index.
    public var isClientError: Bool

    public init(reason: String, message: String, isClientError: Bool = false) {
        self.reason = reason
        self.message = message
        self.isClientError = isClientError
    }

    public var description: String { message }

    public static func notFound(path: String) -> SearchIndexError {
        SearchIndexError(reason: "no-index", message: "no index at \(path) (crawl first, or add items with `searchlight index add`)")
    }

    public static func incompatible(path: String) -> SearchIndexError {
        SearchIndexError(reason: "incompatible", message: "\(path) is not a Searchlight index of schema version \(IndexSchema.version)")
    }

    public static func invalidQuery(_ message: String) -> SearchIndexError {
        SearchIndexError(reason: "invalid-query", message: message, isClientError: true)
    }

    public static func conflict(_ message: String) -> SearchIndexError {
        SearchIndexError(reason: "conflict", message: message, isClientError: true)
    }

    /// The write touches items that belong to another owner.
    public static func forbidden(_ message: String) -> SearchIndexError {
        SearchIndexError(reason: "forbidden", message: message, isClientError: true)
    }

    public static func invalidItem(_ message: String) -> SearchIndexError {
        SearchIndexError(reason: "invalid-item", message: message, isClientError: true)
    }

    /// Wraps an SQLite failure with what it means for the index at `path`.
    static func database(_ error: SQLiteError, path: String) -> SearchIndexError {
        if error.isCorrupt {
            return SearchIndexError(reason: "corrupt", message: "\(path) is damaged or not an index: \(error.message)")
        }
        if error.isBusy {
            return SearchIndexError(reason: "locked", message: "\(path) is locked by another process; try again")
        }
        return SearchIndexError(reason: "database", message: "\(path): \(error.message)")
    }
}
