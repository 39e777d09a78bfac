/// The order a host's due URLs are claimed in, the same in every crawl store: first the
/// URLs an IndexNow notice named, first noticed first (a site's owner said they changed:
/// they go ahead of routine work, never ahead of the host's politeness); then the
/// URLs fetched before and due again, most overdue first; then new ones, those a sitemap
/// listed (the owner's own) before those found by links, shallower before deeper, the
/// first found first. Ties go by id, so two stores hand out one host's URLs alike.
public enum ClaimOrder {
    /// `ORDER BY` terms over the frontier's `urls` columns, which both stores name alike.
    public static let revisitsSQL = "due, id"
    public static let newURLsSQL = "from_sitemap DESC, depth, id"
    public static let noticedSQL = "noticed, id"

    /// The same orders on claimed entries, for a store whose claim returns rows unordered
    /// (PostgreSQL's `UPDATE … RETURNING`).
    public static func revisitBefore(_ a: (due: Double, id: Int64), _ b: (due: Double, id: Int64)) -> Bool { (a.due, a.id) < (b.due, b.id) }

    public static func noticedBefore(_ a: FrontierEntry, _ b: FrontierEntry) -> Bool {
        (a.noticed ?? .distantFuture, a.id) < (b.noticed ?? .distantFuture, b.id)
    }

    public static func newBefore(_ a: FrontierEntry, _ b: FrontierEntry) -> Bool {
        (a.fromSitemap ? 0 : 1, a.depth, a.id) < (b.fromSitemap ? 0 : 1, b.depth, b.id)
    }
}
