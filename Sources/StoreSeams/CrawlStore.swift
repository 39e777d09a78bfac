import Foundation
import Items
import WebURL

/// Whether this run may crawl a host.
public enum HostClaim: Sendable {
    /// Yes; with what the store knows of it.
    case granted(HostRecord?)
    /// Another worker is crawling it: leave it to that one.
    case heldElsewhere
}

/// Where a crawl keeps its frontier and writes its items: the engine's only way to the
/// data, so that the embedded SQLite folder (``LocalCrawlStore``) and a shared database
/// plug in alike. Used from the crawl's coordinating thread only.
public protocol CrawlStore: AnyObject {
    /// Takes a host for this run before anything is sent to it. A shared store grants
    /// each host to one worker at a time (a lease the store renews on every commit), so
    /// politeness, robots.txt and the association files hold for the whole fleet.
    func acquireHost(_ origin: String, now: Date) throws -> HostClaim
    /// The run is over: hosts and unsent claims go back to the others.
    func endRun() throws
    /// Whether other workers share this store: then a run looks again, while it lasts, for
    /// hosts they let go or left behind (a killed worker's, once its lease runs out).
    var isShared: Bool { get }
    /// How many hosts with work due another worker holds now; a run of a shared store waits
    /// for them rather than end while a killed worker's hosts are still leased.
    func originsHeldElsewhere(now: Date) throws -> Int
    /// Says this worker is alive and how many of its hosts it holds beyond its fair share
    /// of the fleet's: those it hands back (``releaseHost(_:)``) for workers that started later.
    func hostsOverShare(now: Date) throws -> Int
    /// Gives a host and its unsent claims back to the fleet.
    func releaseHost(_ origin: String) throws
    /// Keeps this run's seeds with every earlier run's; returns them all (the scope is
    /// drawn around every seed the store was ever given).
    func remember(seeds: [WebURL], now: Date) throws -> [WebURL]
    /// Releases the claims a run that was killed left.
    func releaseClaims() throws
    /// Removes items not confirmed in time; returns how many.
    func purgeExpired(now: Date) throws -> Int
    /// Makes the selected URLs due now (`crawl --refetch`); returns how many.
    func makeDue(_ selection: RefetchSelection, now: Date) throws -> Int
    /// How many URLs are due at `now`, and when the next one after it is.
    func schedule(now: Date) throws -> (due: Int, next: Date?)
    /// Origins with URLs due and not claimed.
    func originsWithWork(now: Date) throws -> [String]
    /// Origins whose sitemaps were last read before `cutoff`.
    func originsWithSitemapsReadBefore(_ cutoff: Date) throws -> [String]
    func host(_ origin: String) throws -> HostRecord?
    /// Claims up to `limit` URLs of one origin: revisits due first, then new ones.
    func claim(origin: String, now: Date, limit: Int) throws -> [FrontierEntry]
    /// Returns claimed URLs that were never fetched to the queue.
    func release(_ ids: [Int64]) throws
    /// The first URL whose body had this digest.
    func firstURL(withContent hash: String) throws -> String?
    /// The SimHashes of an origin's pages that have an item, by frontier URL, at most `limit`.
    func fingerprints(origin: String, limit: Int) throws -> [(url: String, simhash: UInt64)]
    /// Writes a batch: items first, then the frontier (a crash between them refetches a
    /// page, never loses or doubles an item). Returns new URLs added and items deleted.
    func commit(_ batch: CrawlBatch, now: Date) throws -> (discovered: Int, deleted: Int)

    /// For a store whose items live apart from its frontier: a writer of batches' items that
    /// the engine runs on a thread of its own, so that fetching and dispatching go on while
    /// the index writes. The engine then writes a batch in three steps: its links at once
    /// (``commitLinks(_:now:)``), its items on the writer's thread, and what records them
    /// (``commitRecords(_:now:)``) once they are written — items before their records, as
    /// ``commit(_:now:)`` writes them. Nil (the default) when one transaction writes both.
    func makeItemWriter() throws -> (any CrawlItemWriter)?
    /// Writes ``CrawlBatch/links``; returns how many URLs were new.
    func commitLinks(_ batch: CrawlBatch, now: Date) throws -> Int
    /// Writes ``CrawlBatch/records``, whose items are written.
    func commitRecords(_ batch: CrawlBatch, now: Date) throws
}

extension CrawlStore {
    public func makeItemWriter() throws -> (any CrawlItemWriter)? { nil }
    public func commitLinks(_ batch: CrawlBatch, now: Date) throws -> Int { try commit(batch.links, now: now).discovered }
    public func commitRecords(_ batch: CrawlBatch, now: Date) throws { _ = try commit(batch.records, now: now) }
}

/// Writes the items of a store's batches (``CrawlStore/makeItemWriter()``), in the order
/// given. Made on the coordinator's thread, then used by the writer's thread alone.
public protocol CrawlItemWriter: AnyObject {
    /// Writes ``CrawlBatch/items``; returns how many items were deleted.
    func write(_ batch: CrawlBatch, now: Date) throws -> Int
}
