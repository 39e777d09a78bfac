import Crawl
import EmbeddedStore
import Foundation
import Items
import SearchIndex
import StoreSeams
import Synchronization
import Testing
import WebURL

/// The embedded store's items are written on a thread of their own while the crawl goes on;
/// a page's frontier record (its outcome, naming its item) must still come after its item.
@Suite struct ItemWriteOrderTests {
    /// What reached the store, in order, across the writer's thread and the coordinator's.
    final class Log: Sendable {
        let written = Mutex<Set<String>>([])
        /// Item ids the frontier recorded before their item was written.
        let recordedEarly = Mutex<[String]>([])
        let recorded = Mutex<Set<String>>([])
    }

    struct WriteFailed: Error {}

    /// Writes through the embedded store's writer, slowly enough that records committed
    /// without waiting for it would overtake it (the delay never decides a pass), and fails
    /// the write numbered `failing`, if any.
    final class SlowWriter: CrawlItemWriter {
        let inner: any CrawlItemWriter
        let log: Log
        let failing: Int?
        var writes = 0

        init(_ inner: any CrawlItemWriter, log: Log, failing: Int?) {
            self.inner = inner
            self.log = log
            self.failing = failing
        }

        func write(_ batch: CrawlBatch, now: Date) throws -> Int {
            writes += 1
            usleep(30_000)
            if writes == failing { throw WriteFailed() }
            let deleted = try inner.write(batch, now: now)
            log.written.withLock { $0.formUnion(batch.upserts.map(\.uniqueIdentifier)) }
            return deleted
        }
    }

    /// The embedded store, its writer wrapped and its records checked against the log.
    final class CheckedStore: CrawlStore {
        let local: LocalCrawlStore
        let log: Log
        let failing: Int?

        init(_ local: LocalCrawlStore, log: Log, failing: Int? = nil) {
            self.local = local
            self.log = log
            self.failing = failing
        }

        func makeItemWriter() throws -> (any CrawlItemWriter)? {
            try local.makeItemWriter().map { SlowWriter($0, log: log, failing: failing) }
        }

        func commitRecords(_ batch: CrawlBatch, now: Date) throws {
            let ids = batch.outcomes.compactMap(\.itemID)
            let written = log.written.withLock { $0 }
            log.recordedEarly.withLock { $0 += ids.filter { !written.contains($0) } }
            log.recorded.withLock { $0.formUnion(ids) }
            try local.commitRecords(batch, now: now)
        }

        func commitLinks(_ batch: CrawlBatch, now: Date) throws -> Int {
            try local.commitLinks(batch, now: now)
        }

        func commit(_ batch: CrawlBatch, now: Date) throws -> (discovered: Int, deleted: Int) {
            Issue.record("a store with an item writer is written in parts")
            return try local.commit(batch, now: now)
        }

        var isShared: Bool { local.isShared }
        func acquireHost(_ origin: String, now: Date) throws -> HostClaim { try local.acquireHost(origin, now: now) }
        func endRun() throws { try local.endRun() }
        func originsHeldElsewhere(now: Date) throws -> Int { try local.originsHeldElsewhere(now: now) }
        func hostsOverShare(now: Date) throws -> Int { try local.hostsOverShare(now: now) }
        func releaseHost(_ origin: String) throws { try local.releaseHost(origin) }
        func remember(seeds: [WebURL], now: Date) throws -> [WebURL] { try local.remember(seeds: seeds, now: now) }
        func releaseClaims() throws { try local.releaseClaims() }
        func purgeExpired(now: Date) throws -> Int { try local.purgeExpired(now: now) }
        func makeDue(_ selection: RefetchSelection, now: Date) throws -> Int { try local.makeDue(selection, now: now) }
        func schedule(now: Date) throws -> (due: Int, next: Date?) { try local.schedule(now: now) }
        func originsWithWork(now: Date) throws -> [String] { try local.originsWithWork(now: now) }
        func originsWithSitemapsReadBefore(_ cutoff: Date) throws -> [String] { try local.originsWithSitemapsReadBefore(cutoff) }
        func host(_ origin: String) throws -> HostRecord? { try local.host(origin) }
        func claim(origin: String, now: Date, limit: Int) throws -> [FrontierEntry] { try local.claim(origin: origin, now: now, limit: limit) }
        func release(_ ids: [Int64]) throws { try local.release(ids) }
        func firstURL(withContent hash: String) throws -> String? { try local.firstURL(withContent: hash) }
        func fingerprints(origin: String, limit: Int) throws -> [(url: String, simhash: UInt64)] {
            try local.fingerprints(origin: origin, limit: limit)
        }
    }

    /// A shop of `pages` product pages, each linked from the home page and the one before.
    func shop(_ h: CrawlEngineTests.Harness, pages: Int) {
        h.web.text("http://shop.test/robots.txt", "User-agent: *\nAllow: /\n")
        h.web.page("http://shop.test/", CrawlEngineTests().html("Shop", links: (1...pages).map { "/p\($0)" }))
        for n in 1...pages {
            h.web.page("http://shop.test/p\(n)", CrawlEngineTests().html("Product \(n) \(String(repeating: "x", count: n))", links: ["/p\(n % pages + 1)"]))
        }
    }

    func run(_ h: CrawlEngineTests.Harness, log: Log, failing: Int? = nil) throws -> RunReport {
        let store = CheckedStore(try LocalCrawlStore(dataDirectory: h.configuration.dataDirectory), log: log, failing: failing)
        return try CrawlEngine(configuration: h.configuration, store: store, downloader: h.web, warc: nil, runID: "ordered").run()
    }

    @Test func aPageIsRecordedOnlyAfterItsItemIsWritten() throws {
        let h = try CrawlEngineTests.Harness()
        shop(h, pages: 60)
        h.configuration.concurrency = 4
        let log = Log()
        let report = try run(h, log: log)
        #expect(report.indexed == 61)
        #expect(log.recordedEarly.withLock { $0 }.isEmpty, "outcomes naming items not yet written")
        #expect(log.recorded.withLock { $0.count } == 61, "every page recorded by the end of the run")
        for n in [1, 30, 60] { #expect(try h.item("http://shop.test/p\(n)")?.title.hasPrefix("Product \(n) ") == true) }
    }

    @Test func aFailedItemWriteEndsTheRunAndItsPagesAreFetchedAgain() throws {
        let h = try CrawlEngineTests.Harness()
        shop(h, pages: 60)
        h.configuration.concurrency = 4
        let log = Log()
        // The first write is the seeds' batch, which holds no item; a second always comes.
        #expect(throws: WriteFailed.self) { try run(h, log: log, failing: 2) }
        let written = log.written.withLock { $0 }
        #expect(log.recordedEarly.withLock { $0 }.isEmpty)
        #expect(log.recorded.withLock { $0 }.isSubset(of: written), "nothing recorded whose item was lost")
        // The next run fetches what was not recorded, and the index ends up whole.
        let report = try h.run()
        #expect(report.indexed + log.recorded.withLock { $0.count } >= 61)
        for n in 1...60 { #expect(try h.item("http://shop.test/p\(n)") != nil, "p\(n)") }
    }
}

/// A batch's size in pages: a page indexed is an item write and a frontier outcome, one page.
@Suite struct CrawlBatchCountTests {
    @Test func aPageIndexedCountsOnce() throws {
        var batch = CrawlBatch()
        for number in 0..<256 {
            let url = WebURL("https://count.example/\(number)")!
            let entry = FrontierEntry(id: Int64(number), url: url, origin: url.origin, depth: 1)
            batch.outcomes.append(FrontierOutcome(keeping: entry, state: .done, due: Date()))
            if number % 2 == 0 {
                batch.upserts.append(try SearchableItem(uniqueIdentifier: url.string, title: "Page \(number)", source: .crawled).validated(.crawled, now: Date()))
            }
        }
        #expect(batch.count == 256, "256 pages, a commit's worth: the configured size, not twice it")
    }
}
