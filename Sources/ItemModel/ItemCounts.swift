/// What an item store holds, for status pages (`searchlight status`, `/v1/status`).
public struct ItemCounts: Sendable {
    /// Items by source (`crawled`, `pushed`, `activity`), expired ones included.
    public var itemsBySource: [String: Int]
    /// Items past their expiration date, out of results and purged at the next write.
    public var expired: Int
    /// Distinct domain identifiers.
    public var domains: Int
    public var items: Int { itemsBySource.values.reduce(0, +) }

    public init(itemsBySource: [String: Int], expired: Int, domains: Int) {
        self.itemsBySource = itemsBySource
        self.expired = expired
        self.domains = domains
    }
}
