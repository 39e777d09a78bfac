import JSON

/// Why the index could not do what was asked: a typed ``Kind`` (callers switch on it,
/// never on the message) and a message for people.
public struct SearchIndexError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to switch on.
    public enum Kind: String, Sendable, Hashable {
        /// No index file where one was expected.
        case noIndex = "no-index"
        /// The file is an index of another schema version.
        case incompatible
        /// The file is damaged or not an index.
        case corrupt
        /// Another process holds the write lock past the timeout.
        case locked
        /// Any other database failure.
        case database
        case invalidQuery = "invalid-query"
        case invalidItem = "invalid-item"
        /// A batch's expected client state is not the stored one.
        case conflict
        /// The write touches items that belong to another owner.
        case forbidden
        /// A remote service answered with something that is not a search response.
        case invalidResponse = "invalid-response"
    }

    public var kind: Kind
    public var message: String
    /// The request's parameter at fault (its `/v1/search` name: `hasApp`, `near`…), when one
    /// is: a command line names its own flag instead.
    public var field: String?

    public init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }

    /// A stable label (API error codes use it).
    public var reason: String { kind.rawValue }

    /// True when the caller's input was at fault (a bad query, a stale client state), not
    /// the index.
    public var isClientError: Bool {
        switch kind {
        case .invalidQuery, .invalidItem, .conflict, .forbidden: true
        case .noIndex, .incompatible, .corrupt, .locked, .database, .invalidResponse: false
        }
    }

    public var description: String { message }

    /// No index file at `path`.
    public static func notFound(path: String) -> SearchIndexError {
        SearchIndexError(.noIndex, "no index at \(path) (crawl first, or add items with `searchlight index add`)")
    }

    /// A request out of its rules; `field` names the parameter at fault.
    public static func invalidQuery(_ message: String, field: String? = nil) -> SearchIndexError { SearchIndexError(.invalidQuery, message, field: field) }
    /// A batch's stored client state is not the one expected.
    public static func conflict(_ message: String) -> SearchIndexError { SearchIndexError(.conflict, message) }
    /// The caller may not change these items.
    public static func forbidden(_ message: String) -> SearchIndexError { SearchIndexError(.forbidden, message) }
    /// An item the contract refuses.
    public static func invalidItem(_ message: String) -> SearchIndexError { SearchIndexError(.invalidItem, message) }

    /// A pushed item's field that is missing, wrong or out of its limits.
    public static func invalidField(_ error: FieldError) -> SearchIndexError { SearchIndexError(.invalidItem, error.description) }
}
