import Foundation
import WebURL

/// One row of a store's answer, read by column (0-based) whatever the database: what lets a
/// frontier entry and a host record be mapped from a row once, for the embedded store and
/// the shared one alike. A NULL reads as nil.
public protocol StoreRow {
    func storeInteger(_ column: Int) -> Int64?
    func storeReal(_ column: Int) -> Double?
    func storeText(_ column: Int) -> String?
    func storeBytes(_ column: Int) -> [UInt8]?
    func storeFlag(_ column: Int) -> Bool?
}

extension StoreRow {
    /// A time stored as seconds since 1970.
    public func storeDate(_ column: Int) -> Date? { storeReal(column).map(Date.init(timeIntervalSince1970:)) }
}

extension FrontierEntry {
    /// The columns ``init(row:)`` reads, in its order (the stores' `urls` tables name them alike).
    public static let rowColumns = """
        id, url, origin, depth, from_sitemap, fetched, etag, last_modified, content_hash, item_id, failures, first_failure,
        redirects, "interval", sitemap_lastmod, fetched_at, changefreq, noticed
        """

    /// The entry of a row read with ``rowColumns`` first; nil when the stored URL does not
    /// parse (a row written by another version) or the row has no id.
    public init?(row: some StoreRow) {
        guard let id = row.storeInteger(0), let url = row.storeText(1).flatMap(WebURL.init) else { return nil }
        self.init(
            id: id, url: url, origin: row.storeText(2) ?? url.origin, depth: row.storeInteger(3).map(Int.init) ?? 0,
            fromSitemap: row.storeFlag(4) ?? false, fetched: row.storeFlag(5) ?? false, etag: row.storeText(6),
            lastModified: row.storeText(7), contentHash: row.storeText(8), itemID: row.storeText(9),
            failures: row.storeInteger(10).map(Int.init) ?? 0, firstFailure: row.storeDate(11),
            redirects: row.storeInteger(12).map(Int.init) ?? 0, interval: row.storeReal(13),
            sitemapLastModified: row.storeDate(14), fetchedAt: row.storeDate(15), changeFrequency: row.storeText(16),
            noticed: row.storeDate(17))
    }
}

extension HostRecord {
    /// The columns ``init(origin:row:from:)`` reads, in its order.
    public static let rowColumns = "robots_status, robots_body, robots_fetched, association_fetched, aasa, assetlinks, backoff_until, sitemaps_fetched"

    /// The record of `origin` from a row holding ``rowColumns`` from column `first` on.
    public init(origin: String, row: some StoreRow, from first: Int) {
        self.init(origin: origin)
        robotsStatus = row.storeInteger(first).map(Int.init)
        robotsBody = row.storeBytes(first + 1)
        robotsFetched = row.storeDate(first + 2)
        associationFetched = row.storeDate(first + 3)
        aasaBody = row.storeBytes(first + 4)
        assetLinksBody = row.storeBytes(first + 5)
        backoffUntil = row.storeDate(first + 6)
        sitemapsFetched = row.storeDate(first + 7)
    }
}
