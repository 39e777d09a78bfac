import Foundation
import StoreSeams

/// What a run writes and when: the ``CrawlBatch`` gathered since the last flush, the URLs
/// already queued this run, and the order of writes that keeps a killed run safe. With an
/// item writer (the embedded store), a flush commits the links at once, hands the items to
/// the writer's thread, and records their pages only once they are written; without one,
/// the whole batch is one commit.
struct CrawlWriter {
    /// What a write added to the store, for the run report.
    struct Written {
        var discovered = 0
        var deleted = 0
    }

    /// Pages' worth of work that makes a flush due before its interval is up.
    static let batchPages = 256
    /// Batches whose items may be written or waiting to be recorded at once: a flush past it
    /// waits for the oldest (memory stays bounded when the index falls behind).
    static let itemBatchesInFlight = 2

    let store: CrawlStore
    let clock: CrawlClock
    /// ``CrawlConfiguration/commitInterval``.
    let interval: TimeInterval
    /// How long this run's pages took to become searchable (the run report's).
    private(set) var freshness = CrawlFreshness()
    /// Writes items off the coordinator's thread, when the store has a writer for them.
    let itemWrites: ItemWriteQueue?
    var batch = CrawlBatch()
    private var seen = SeenFilter()
    private var lastFlush = Date.distantPast
    /// The records of batches whose items are being written, oldest first, with their flush time.
    private var unrecorded: [(records: CrawlBatch, now: Date)] = []

    init(store: CrawlStore, itemWrites: ItemWriteQueue?, clock: CrawlClock, interval: TimeInterval) {
        self.store = store
        self.interval = interval
        self.clock = clock
        self.itemWrites = itemWrites
    }

    /// True the first time a URL is mentioned this run (a link, a sitemap entry, a seed).
    mutating func isFirstMention(_ url: String) -> Bool { seen.insert(url) }

    /// The commit interval since the last flush, or a full batch.
    func isDue(now: Date) -> Bool { batch.count >= Self.batchPages || now.timeIntervalSince(lastFlush) >= interval }

    /// Commits what has accumulated, with each host's next allowed time.
    mutating func flush(now: Date, nextAllowed: [String: Date]) throws -> Written {
        lastFlush = now
        batch.nextAllowed.merge(nextAllowed) { _, new in new }
        guard !batch.isEmpty else { return Written() }
        let written = batch
        batch = CrawlBatch()
        guard let itemWrites else {
            var written = written
            timed(&written, searchable: now)
            let result = try store.commit(written, now: now)
            return Written(discovered: result.discovered, deleted: result.deleted)
        }
        var counts = Written(discovered: try store.commitLinks(written, now: now))
        while unrecorded.count >= Self.itemBatchesInFlight {
            itemWrites.waitForAWrite()
            counts.deleted += try recordWrittenItems()
        }
        itemWrites.submit(written.items, now: now)
        unrecorded.append((written.records, now))
        return counts
    }

    /// Writes the links found since the last flush, so that a claim sees them; the items and
    /// their records wait for the next flush. Without an item writer, flushes everything.
    mutating func flushLinks(now: Date, nextAllowed: [String: Date]) throws -> Written {
        guard itemWrites != nil else { return try flush(now: now, nextAllowed: nextAllowed) }
        let discovered = try store.commitLinks(batch, now: now)
        batch.removeLinks()
        return Written(discovered: discovered)
    }

    /// Records the batches whose items the writer has written, oldest first; returns the
    /// items they deleted. A write that failed ends the run with its error (its pages stay
    /// unrecorded: fetched again next run).
    mutating func recordWrittenItems() throws -> Int {
        guard let itemWrites else { return 0 }
        var deleted = 0
        for result in itemWrites.takeFinished() {
            deleted += try result.get()
            var (records, now) = unrecorded.removeFirst()
            timed(&records, searchable: clock.now)
            try store.commitRecords(records, now: now)
        }
        return deleted
    }

    /// Times the pages whose records are written now, their items already written (or in
    /// the same commit): the batch carries the figures to the store, the run keeps them too.
    private mutating func timed(_ records: inout CrawlBatch, searchable: Date) {
        records.freshness.record(records.outcomes, searchable: searchable)
        freshness.add(records.freshness)
    }

    /// Flushes and waits until every batch's items are written and recorded.
    mutating func finish(now: Date, nextAllowed: [String: Date]) throws -> Written {
        var counts = try flush(now: now, nextAllowed: nextAllowed)
        while !unrecorded.isEmpty {
            itemWrites?.waitForAWrite()
            counts.deleted += try recordWrittenItems()
        }
        return counts
    }
}
