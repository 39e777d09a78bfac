import Foundation
import Items
import WebURL

/// Everything a crawl writes between two flushes, to the index and the frontier together:
/// the unit ``CrawlStore/commit(_:now:)`` applies.
public struct CrawlBatch: Sendable {
    public var upserts: [ValidItem] = []
    public var deletes = Set<String>()
    /// Items confirmed unchanged (a 304): their expiration moves to the date.
    public var confirmations: [String: Date] = [:]
    public var outcomes: [FrontierOutcome] = []
    public var newURLs: [FrontierURL] = []
    /// What sitemaps said of URLs: `lastmod`, `changefreq`.
    public var sitemapNotes: [(url: WebURL, lastModified: Date?, changeFrequency: String?)] = []
    /// Claimed URLs to try again later without counting a fetch (the host said 429).
    public var postponed: [(id: Int64, due: Date)] = []
    /// Digests of bodies seen, with the first URL that had each.
    public var contents: [(hash: String, url: String)] = []
    /// SimHashes of pages indexed, by their frontier URL.
    public var fingerprints: [(origin: String, url: String, simhash: UInt64)] = []
    public var hosts: [String: HostRecord] = [:]
    /// For hosts sent requests since the last flush: when the next may go.
    public var nextAllowed: [String: Date] = [:]
    /// How long the batch's pages took to become searchable, added to the store's counts with
    /// its records (set by the crawl just before they are written).
    public var freshness = CrawlFreshness()

    public init() {}

    /// The pages' worth of work the batch holds, what makes a flush worth doing early: its
    /// item writes or its frontier outcomes, whichever is more (a page indexed is one of each,
    /// so adding them counted each page twice and halved every commit).
    public var count: Int { max(upserts.count + deletes.count, outcomes.count) }

    public var isEmpty: Bool {
        upserts.isEmpty && deletes.isEmpty && confirmations.isEmpty && outcomes.isEmpty && newURLs.isEmpty && sitemapNotes.isEmpty
            && postponed.isEmpty && contents.isEmpty && fingerprints.isEmpty && hosts.isEmpty
    }

    /// The index's part: upserts, deletes and confirmations.
    public var items: CrawlBatch {
        var part = CrawlBatch()
        (part.upserts, part.deletes, part.confirmations) = (upserts, deletes, confirmations)
        return part
    }

    /// What may be written before the batch's items, since a crash after it loses nothing:
    /// new URLs, sitemap notes, postponements and host records.
    public var links: CrawlBatch {
        var part = CrawlBatch()
        (part.newURLs, part.sitemapNotes, part.postponed, part.hosts, part.nextAllowed) = (newURLs, sitemapNotes, postponed, hosts, nextAllowed)
        return part
    }

    /// Leaves out what ``links`` holds, once it is written.
    public mutating func removeLinks() {
        (newURLs, sitemapNotes, postponed, hosts, nextAllowed) = ([], [], [], [:], [:])
    }

    /// What records the batch's items, written only after them: a page's outcome (its item
    /// id), the digests and fingerprints of pages indexed. Written first, a crash would leave
    /// a page recorded whose item was never written.
    public var records: CrawlBatch {
        var part = CrawlBatch()
        (part.outcomes, part.contents, part.fingerprints, part.freshness) = (outcomes, contents, fingerprints, freshness)
        return part
    }

    /// Deletes an item, dropping an upsert of it from this batch.
    public mutating func delete(_ id: String) {
        deletes.insert(id)
        upserts.removeAll { $0.item.uniqueIdentifier == id }
    }
}
