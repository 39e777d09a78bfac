import Dispatch
import Fetch
import Foundation
import PageItems
import Render
import StoreSeams
import WebRules
import WebURL

/// One crawl run over swappable parts, as Scrapy's engine runs over its downloader,
/// scheduler and pipeline: a ``Downloader`` fetches, a ``CrawlStore`` keeps the frontier
/// and the items, each origin's ``HostMachine`` decides its next request, the
/// ``PageAnalyzer`` reads pages on every core, ``PageDecision`` decides what a page means,
/// and the writes of about a second go to the store as one ``CrawlBatch``.
///
/// Threads: the caller's thread coordinates (host machines, the batch, the store); the
/// downloader calls back on its own; a concurrent queue analyses; events come back through
/// a locked ``Inbox``; the embedded store's items are written on a thread of their own
/// (``ItemWriteQueue``). Crash safety: a batch's items are written before the frontier
/// records the pages they came from, so a killed run refetches what it did not record,
/// never losing an item.
public final class CrawlEngine {
    /// A host backed off for longer than this is left for a later run rather than waited for.
    static let longestWait: TimeInterval = 30

    public let configuration: CrawlConfiguration
    let store: CrawlStore
    let downloader: Downloader
    let archive: PageArchive?
    let analyzer: PageAnalyzer
    let admission: LinkAdmission
    /// As many analyses at once as before the pool (twice the cores), the width the crawl was measured at.
    let extraction = ExtractionPool(width: max(2, ProcessInfo.processInfo.activeProcessorCount) * 2)
    let inbox = Inbox()
    var hosts: [String: HostMachine] = [:]
    var order: [String] = []
    var cursor = 0
    var inFlight = 0
    var dispatchedPages = 0
    var seen = SeenFilter()
    var batch = CrawlBatch()
    var report: RunReport
    var lastFlush = Date.distantPast
    var duplicates = DuplicateCheck()
    var fleet: FleetMembership
    /// Hosts another worker holds: not asked for again this run.
    var declined = Set<String>()
    /// Writes items off this thread, when the store has a writer for them.
    private(set) var itemWrites: ItemWriteQueue?
    /// The records of batches whose items are being written, oldest first, with their flush time.
    var unrecorded: [(records: CrawlBatch, now: Date)] = []
    /// Batches whose items may be written or waiting to be recorded at once: a flush past it
    /// waits for the oldest (memory stays bounded when the index falls behind).
    static let itemBatchesInFlight = 2

    public init(configuration: CrawlConfiguration, store: CrawlStore, downloader: Downloader, warc: WARCWriter?, runID: String) throws {
        self.configuration = configuration
        self.store = store
        self.downloader = downloader
        archive = warc.map(PageArchive.init)
        let keys = FrontierKey(keepsTrackingParameters: configuration.keepsTrackingParameters)
        // The scope is drawn around every seed the store was ever given, so that a
        // scheduled run without seed arguments keeps to the same sites.
        let seeds = try store.remember(seeds: configuration.seeds.map { keys.key(for: $0) }, now: configuration.clock.now)
        do {
            admission = LinkAdmission(keys: keys, scope: try CrawlScope(seeds: seeds, mode: configuration.scope,
                                                                      include: configuration.include, exclude: configuration.exclude),
                                      maximumDepth: configuration.maximumDepth)
        } catch {
            throw CrawlError("\(error)")
        }
        var builder = ItemBuilder()
        builder.timeToLive = configuration.itemLifetime
        builder.mappings = configuration.mappings
        var analyzer = PageAnalyzer(builder: builder, admission: admission, templates: SiteTemplates())
        if configuration.render.rendersAny {
            var fetch = configuration.fetch
            fetch.maximumConnections = max(2, configuration.renderer.concurrency * 2)
            analyzer.renderer = Renderer(configuration: configuration.renderer, browser: Browser(configuration: configuration.browser),
                                         subresources: CrawlerSubresources(configuration: fetch, productToken: configuration.productToken,
                                                                                   spacing: configuration.delay))
            analyzer.render = configuration.render
        }
        self.analyzer = analyzer
        report = RunReport(id: runID, started: configuration.clock.now)
        fleet = FleetMembership(started: configuration.clock.now)
        let inbox = self.inbox
        itemWrites = try store.makeItemWriter().map { ItemWriteQueue(writer: $0, wake: { inbox.wake() }) }
    }

    /// A run on the data folder: the embedded store, libcurl, WARC files in `warc/`.
    public static func local(configuration: CrawlConfiguration, runID: String) throws -> CrawlEngine {
        try with(store: try LocalCrawlStore(dataDirectory: configuration.dataDirectory), configuration: configuration, runID: runID)
    }

    /// A run over `store` that fetches with libcurl and writes WARC files to the data
    /// folder's `warc/` (a worker of a shared store keeps its archive locally).
    public static func with(store: CrawlStore, configuration: CrawlConfiguration, runID: String) throws -> CrawlEngine {
        var fetch = configuration.fetch
        fetch.maximumConnectionsPerHost = configuration.perHostConnections
        fetch.maximumConnections = max(configuration.concurrency, 1)
        let warc = configuration.writesWARC
            ? try WARCWriter(directory: configuration.folder.warcDirectory, software: configuration.software, maximumFileBytes: configuration.warcFileBytes)
            : nil
        return try CrawlEngine(configuration: configuration, store: store, downloader: HTTPClient(configuration: fetch), warc: warc, runID: runID)
    }

    deinit {
        downloader.shutdown(cancelInFlight: true)
    }

    /// Runs until there is nothing due, a limit is reached, or `shouldStop` says so; then
    /// lets in-flight requests finish, writes everything, and returns the report.
    public func run(progress: ((CrawlProgress) -> Void)? = nil, shouldStop: @escaping () -> Bool = { false }) throws -> RunReport {
        let clock = configuration.clock
        let started = clock.now
        try store.releaseClaims()
        // Items not confirmed within their lifetime leave the index even when nothing else is written.
        report.expired = try store.purgeExpired(now: started)
        for seed in configuration.seeds {
            let key = admission.keys.key(for: seed)
            if seen.insert(key.string) { batch.newURLs.append(FrontierURL(url: key, depth: 0, foundOn: "seed")) }
        }
        try flush(now: started)
        // What was refused for its private address is tried again once a run allows it.
        var refetch = configuration.refetch
        if configuration.fetch.addressPolicy == .any { refetch.append(.reason(SkipReason.refusedAddress.label)) }
        for selection in refetch { report.refetched += try store.makeDue(selection, now: started) }
        if store.isShared { _ = try store.hostsOverShare(now: started) }
        for origin in try store.originsWithWork(now: started) { try activate(origin) }
        if configuration.readsSitemaps {
            for origin in try store.originsWithSitemapsReadBefore(started.addingTimeInterval(-configuration.sitemapInterval))
            where admission.includes(origin: origin) {
                try activate(origin)
            }
        }
        for seed in configuration.seeds { try activate(admission.keys.key(for: seed).origin) }

        var lastProgress = Date.distantPast
        var stopping: String?
        run: while true {
            let now = clock.now
            if stopping == nil {
                if shouldStop() { stopping = "signal" } else if now.timeIntervalSince(started) >= configuration.maximumTime { stopping = "max-time" }
            }
            try recordWrittenItems()
            for event in inbox.drain() { try handle(event, now: now) }
            if stopping == nil { try dispatch(now: now) }
            if stopping == nil, dispatchedPages >= configuration.maximumPages, hasWork(now: now) { stopping = "max-pages" }
            if batch.count >= 256 || now.timeIntervalSince(lastFlush) >= 1 { try flush(now: now) }
            if let progress, now.timeIntervalSince(lastProgress) >= 1 {
                progress(progressSnapshot(now: now, started: started))
                lastProgress = now
            }
            if inFlight == 0, stopping != nil || !hasWork(now: now) {
                // New links not yet written may still give hosts work.
                if stopping == nil, !batch.newURLs.isEmpty {
                    try flush(now: now)
                    continue
                }
                guard stopping == nil, store.isShared else { break }
            }
            if stopping == nil, store.isShared {
                switch fleet.decide(now: now, idle: inFlight == 0 && !hasWork(now: now)) {
                case .wait: break
                case .look: try lookForFreedHosts(now: now)
                case .askWhetherDone:
                    if try fleetIsDone(now: now) { break run }
                    if hasWork(now: now) { continue }
                }
            }
            inbox.wait(timeout: nextWakeUp(now: now))
        }
        return try finish(stoppedBy: stopping ?? "finished")
    }

    func progressSnapshot(now: Date, started: Date) -> CrawlProgress {
        let hosts = order.compactMap { origin -> CrawlProgress.Host? in
            guard let host = self.hosts[origin] else { return nil }
            let stage = host.hasWork(pageCap: configuration.maximumPagesPerHost) ? host.stage : .done
            return CrawlProgress.Host(origin: origin, stage: stage, pages: host.pagesThisRun, queued: host.queued, inFlight: host.inFlight,
                                      backingOffUntil: host.backoffUntil.flatMap { $0 > now ? $0 : nil })
        }
        return CrawlProgress(fetched: report.fetched, indexed: report.indexed, errors: report.skipped.values.reduce(0, +),
                             queued: hosts.reduce(0) { $0 + $1.queued }, inFlight: inFlight, seconds: now.timeIntervalSince(started),
                             hosts: hosts.sorted { ($0.inFlight, $0.queued, $0.pages) > ($1.inFlight, $1.queued, $1.pages) })
    }

    func finish(stoppedBy: String) throws -> RunReport {
        let end = configuration.clock.now
        var unsent: [Int64] = []
        for origin in order {
            guard var host = hosts[origin] else { continue }
            if host.hasPagesLeft, host.pagesThisRun >= configuration.maximumPagesPerHost { report.hosts[origin, default: RunReport.Host()].capped = true }
            if host.hasPagesLeft, let until = host.backoffUntil, until > end { report.skip(.hostBackingOff) }
            unsent += host.takeBuffer().map(\.id)
            hosts[origin] = host
        }
        // Claimed URLs that were never sent go back to the queue.
        try store.release(unsent)
        let finished = configuration.clock.now
        try flush(now: finished)
        while !unrecorded.isEmpty {
            itemWrites?.waitForAWrite()
            try recordWrittenItems()
        }
        let schedule = try store.schedule(now: finished)
        report.due = schedule.due
        report.nextDue = schedule.next
        try store.endRun()
        if let archive {
            let (files, failures) = try archive.close()
            report.warcFiles = files
            if failures > 0 { report.skip(.warcWriteError, count: failures) }
        }
        report.stoppedBy = stoppedBy
        report.finished = finished
        analyzer.renderer?.browser.kill()
        return report
    }

    // MARK: hosts

    /// Starts crawling a host, unless another worker of a shared store has it.
    func activate(_ origin: String) throws {
        if hosts[origin] != nil {
            hosts[origin]?.exhausted = false
            return
        }
        guard !declined.contains(origin) else { return }
        let now = configuration.clock.now
        guard case .granted(let record) = try store.acquireHost(origin, now: now) else {
            declined.insert(origin)
            return
        }
        var host = HostMachine(origin: origin, record: record, configuration: configuration, now: now)
        let effects = host.useCachedRobots(configuration: configuration, now: now)
        try duplicates.start(origin, store: store)
        hosts[origin] = host
        order.append(origin)
        try apply(effects, for: origin)
    }

    /// Saves what a host's event changed and routes the sitemaps it found: to the host itself,
    /// or to another in scope (which learns whose robots.txt named it).
    func apply(_ effects: HostMachine.Effects, for origin: String) throws {
        if let record = effects.save { batch.hosts[origin] = record }
        if let skip = effects.skip { report.skip(skip) }
        for sitemap in effects.sitemaps where admission.readsSitemap(sitemap, namedBy: origin) {
            if sitemap.origin != origin { try activate(sitemap.origin) }
            hosts[sitemap.origin]?.queueSitemap(sitemap, from: sitemap.origin == origin ? nil : origin)
        }
    }

    func hasWork(now: Date) -> Bool {
        hosts.values.contains { hasWork($0, now: now) }
    }

    func hasWork(_ host: HostMachine, now: Date) -> Bool {
        guard host.hasWork(pageCap: configuration.maximumPagesPerHost) else { return false }
        guard host.inFlight == 0, let until = host.backoffUntil else { return true }
        return until.timeIntervalSince(now) <= Self.longestWait
    }

    func nextWakeUp(now: Date) -> TimeInterval {
        var wake = 0.2
        for host in hosts.values where hasWork(host, now: now) && host.inFlight < configuration.perHostConnections {
            wake = min(wake, max(0.001, host.readyAt.timeIntervalSince(now)))
        }
        return wake
    }

    // MARK: writing

    /// Commits what has accumulated. With an item writer: the links now, the items on the
    /// writer's thread, their records once they are written (``recordWrittenItems()``);
    /// else the whole batch in one commit.
    func flush(now: Date) throws {
        lastFlush = now
        for (origin, host) in hosts where host.hasSent { batch.nextAllowed[origin] = host.readyAt }
        guard !batch.isEmpty else { return }
        let written = batch
        batch = CrawlBatch()
        guard let itemWrites else {
            let result = try store.commit(written, now: now)
            report.discovered += result.discovered
            report.deleted += result.deleted
            return
        }
        report.discovered += try store.commitLinks(written, now: now)
        while unrecorded.count >= Self.itemBatchesInFlight {
            itemWrites.waitForAWrite()
            try recordWrittenItems()
        }
        itemWrites.submit(written.items, now: now)
        unrecorded.append((written.records, now))
    }

    /// Writes the links found since the last flush, so that a claim sees them; the items and
    /// their records wait for the next flush. Without an item writer, flushes everything.
    func flushLinks(now: Date) throws {
        guard itemWrites != nil else { return try flush(now: now) }
        report.discovered += try store.commitLinks(batch, now: now)
        batch.removeLinks()
    }

    /// Records the batches whose items the writer has written, oldest first. A write that
    /// failed ends the run with its error (its pages stay unrecorded: fetched again next run).
    func recordWrittenItems() throws {
        guard let itemWrites else { return }
        for result in itemWrites.takeFinished() {
            report.deleted += try result.get()
            let (records, now) = unrecorded.removeFirst()
            try store.commitRecords(records, now: now)
        }
    }
}

@available(*, unavailable)
extension CrawlEngine: Sendable {}
