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
    /// Its key paths read more related records than one item may
    /// (``RelatedReadBudget/recordsPerItem``): a to-many path over thousands of members in
    /// many templates would otherwise make one run take hours.
    case tooManyRelated = "too-many-related"
}

/// How many related records rendering one item may read, over all its templates: what
/// bounds an ingest's cost at rows × this, whatever the mapping's to-many paths reach.
/// Reading a member counts (from the database or the run's row cache); a key path asked
/// again by another template of the same item is answered from the first reading.
public struct RelatedReadBudget: Sendable {
    public static let recordsPerItem = 20_000

    public private(set) var left: Int

    public init(_ records: Int = Self.recordsPerItem) {
        left = records
    }

    /// Spends `count` reads; false once the budget is spent.
    public mutating func spend(_ count: Int) -> Bool {
        left -= count
        return left >= 0
    }

    /// Thrown by a reader whose item spent its budget.
    public struct Spent: Error, Sendable {
        public init() {}
    }
}
