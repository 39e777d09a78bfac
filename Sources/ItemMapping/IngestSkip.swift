/// Why a record did not become an item (counted in the run report, never silent).
public enum IngestSkip: String, Sendable, Hashable, CaseIterable {
    /// `uniqueIdentifierPattern` came out empty (its values are missing).
    case emptyIdentifier = "empty-identifier"
    /// The title came out empty.
    case emptyTitle = "empty-title"
    /// Another record of the source already made an item with this identifier.
    case duplicateIdentifier = "duplicate-identifier"
    /// A value an item cannot hold (a URL that is not http(s), a rating out of range…).
    case invalidItem = "invalid-item"
    /// Its key paths read more related records than one item may (ingest's related-read
    /// budget): a to-many path over thousands of members in many templates would otherwise
    /// make one run take hours.
    case tooManyRelated = "too-many-related"
}
