import Foundation
import SearchIndex
import StoreSeams
import WebURL

/// The embedded store: `frontier.sqlite` and `index.sqlite` in the data folder.
public final class LocalCrawlStore: CrawlStore {
    private let frontier: Frontier
    private let index: SearchIndex

    public var isShared: Bool { false }
    public func originsHeldElsewhere(now: Date) throws -> Int { 0 }
    public func hostsOverShare(now: Date) throws -> Int { 0 }
    public func releaseHost(_ origin: String) throws {}

    public init(dataDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        let folder = DataFolder(dataDirectory)
        frontier = try Frontier(path: folder.frontierPath)
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
        var deleted = 0
        if !batch.upserts.isEmpty || !batch.deletes.isEmpty || !batch.confirmations.isEmpty {
            var write = SearchIndex.Batch(upserts: batch.upserts, deleteIdentifiers: Array(batch.deletes))
            write.confirmations = batch.confirmations
            deleted = try index.commit(write, now: now).deleted
        }
        let discovered = try frontier.transaction {
            let discovered = try frontier.add(batch.newURLs, now: now)
            for note in batch.sitemapNotes {
                try frontier.noteSitemapEntry(note.url, lastModified: note.lastModified, changeFrequency: note.changeFrequency, now: now)
            }
            try frontier.record(batch.outcomes, now: now)
            for (id, due) in batch.postponed { try frontier.postpone(id, until: due) }
            for (hash, url) in batch.contents { try frontier.recordContent(hash, url: url) }
            for (origin, url, simhash) in batch.fingerprints { try frontier.recordFingerprint(simhash, url: url, origin: origin) }
            for record in batch.hosts.values { try frontier.save(record) }
            return discovered
        }
        return (discovered, deleted)
    }
}

@available(*, unavailable)
extension LocalCrawlStore: Sendable {}
