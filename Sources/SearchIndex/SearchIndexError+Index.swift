import Items
import SearchModel
import SQLite

/// The index's own errors: a file of another schema, an SQLite failure, a refused batch.
extension SearchIndexError {
    public static func incompatible(path: String) -> SearchIndexError {
        SearchIndexError(.incompatible, "\(path) is not a Searchlight index of schema version \(IndexSchema.version)")
    }

    /// Wraps an SQLite failure with what it means for the index at `path`.
    static func database(_ error: SQLiteError, path: String) -> SearchIndexError {
        if error.isCorrupt { return SearchIndexError(.corrupt, "\(path) is damaged or not an index: \(error.message)") }
        if error.isBusy { return SearchIndexError(.locked, "\(path) is locked by another process; try again") }
        return SearchIndexError(.database, "\(path): \(error.message)")
    }

    /// The error a store gives for a batch it refuses (``ItemBatch/refusal``).
    public init(_ refusal: ItemBatch.Refusal) {
        switch refusal {
        case .clientStateTooLarge: self.init(.invalidItem, refusal.message)
        case .othersItems: self.init(.forbidden, refusal.message)
        }
    }
}
