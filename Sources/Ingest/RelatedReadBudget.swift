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
