import Foundation
import Items
import SearchIndex
import StoreSeams
import WebURL

/// The embedded store: `frontier.sqlite` and `index.sqlite` in the data folder.
public final class LocalCrawlStore: CrawlStore {
    private let frontier: Frontier
    private let index: SearchIndex
    private let indexPath: String

    public var isShared: Bool { false }
    public func originsHeldElsewhere(now: Date) throws -> Int { 0 }
    public func hostsOverShare(now: Date) throws -> Int { 0 }
    public func releaseHost(_ origin: String) throws {}

    public init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let folder = DataFolder(dataDirectory)
        frontier = try Frontier(path: folder.frontierPath)
        indexPath = folder.indexPath
        // Not mapped: the crawl appends, and mapped pages it touched would count as its memory.
        index = try SearchIndex(path: folder.indexPath, mappedBytes: 0)
    }

    public func remember(seeds: [WebURL], now: Date) throws -> [WebURL] {
        try frontier.remember(seeds: seeds, now: now)
        return try frontier.seeds()
    }

    /// One process crawls a data folder at a time (``CrawlLock``): every host is ours.
    public func acquireHost(_ origin: String, now: Date) throws -> HostClaim { .granted(try frontier.host(origin)) }
    public func endRun() throws {}

    public func releaseClaims() throws { try frontier.releaseClaims() }
    public func purgeExpired(now: Date) throws -> Int { try index.purgeExpired(now: now) }
    public func makeDue(_ selection: RefetchSelection, now: Date) throws -> Int { try frontier.makeDue(selection, now: now) }
    public func schedule(now: Date) throws -> (due: Int, next: Date?) { try frontier.schedule(now: now) }
    public func originsWithWork(now: Date) throws -> [String] { try frontier.originsWithWork(now: now) }
    public func originsWithSitemapsReadBefore(_ cutoff: Date) throws -> [String] { try frontier.originsWithSitemapsReadBefore(cutoff) }
    public func host(_ origin: String) throws -> HostRecord? { try frontier.host(origin) }

    public func claim(origin: String, now: Date, limit: Int) throws -> [FrontierEntry] {
        try frontier.claim(origin: origin, now: now, limit: limit)
    }

    public func release(_ ids: [Int64]) throws { try frontier.release(ids) }
    public func firstURL(withContent hash: String) throws -> String? { try frontier.firstURL(withContent: hash) }
    public func fingerprints(origin: String, limit: Int) throws -> [(url: String, simhash: UInt64)] {
        try frontier.fingerprints(origin: origin, limit: limit)
    }

    public func commit(_ batch: CrawlBatch, now: Date) throws -> (discovered: Int, deleted: Int) {
        let deleted = try LocalItemWriter.write(batch, to: index, now: now)
        let discovered = try frontier.transaction {
            let discovered = try writeLinks(batch, now: now)
            try writeRecords(batch, now: now)
            return discovered
        }
        return (discovered, deleted)
    }

    /// A writer with a connection of its own to `index.sqlite`: the frontier is another file.
    public func makeItemWriter() throws -> (any CrawlItemWriter)? { try LocalItemWriter(path: indexPath) }

    public func commitLinks(_ batch: CrawlBatch, now: Date) throws -> Int {
        try frontier.transaction { try writeLinks(batch, now: now) }
    }

    public func commitRecords(_ batch: CrawlBatch, now: Date) throws {
        try frontier.transaction { try writeRecords(batch, now: now) }
    }

    private func writeLinks(_ batch: CrawlBatch, now: Date) throws -> Int {
        let discovered = try frontier.add(batch.newURLs, now: now)
        for note in batch.sitemapNotes {
            try frontier.noteSitemapEntry(note.url, lastModified: note.lastModified, changeFrequency: note.changeFrequency, now: now)
        }
        for (id, due) in batch.postponed { try frontier.postpone(id, until: due) }
        for record in batch.hosts.values { try frontier.save(record) }
        return discovered
    }

    private func writeRecords(_ batch: CrawlBatch, now: Date) throws {
        try frontier.record(batch.outcomes, now: now)
        for (hash, url) in batch.contents { try frontier.recordContent(hash, url: url) }
        for (origin, url, simhash) in batch.fingerprints { try frontier.recordFingerprint(simhash, url: url, origin: origin) }
        if !batch.freshness.isEmpty { try frontier.addFreshness(batch.freshness) }
    }
}

/// The embedded store's item writer: its own connection to `index.sqlite`, not mapped (the
/// crawl appends, and mapped pages it touched would count as its memory).
final class LocalItemWriter: CrawlItemWriter {
    private let index: SearchIndex

    init(path: String) throws {
        index = try SearchIndex(path: path, mappedBytes: 0)
    }

    func write(_ batch: CrawlBatch, now: Date) throws -> Int {
        try Self.write(batch, to: index, now: now)
    }

    /// Writes a batch's upserts, deletes and confirmations to `index`; returns how many items were deleted.
    static func write(_ batch: CrawlBatch, to index: SearchIndex, now: Date) throws -> Int {
        guard !batch.upserts.isEmpty || !batch.deletes.isEmpty || !batch.confirmations.isEmpty else { return 0 }
        var write = ItemBatch(upserts: batch.upserts, deleteIdentifiers: Array(batch.deletes))
        write.confirmations = batch.confirmations
        return try index.commit(write, now: now).deleted
    }
}

@available(*, unavailable)
extension LocalCrawlStore: Sendable {}
