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
    public let configuration: CrawlConfiguration
    let store: CrawlStore
    let downloader: Downloader
    let archive: PageArchive?
    let analyzer: PageAnalyzer
    let admission: LinkAdmission
    /// Page analysis on every core (``ExtractionPool/width(cores:renders:)``).
    let extraction: ExtractionPool
    let inbox = Inbox()
    var hosts: HostTable
    var writer: CrawlWriter
    var report: RunReport
    var duplicates = DuplicateCheck()
    var fleet: FleetMembership
    /// Continuous mode: set by the wake-up (another process made work due).
    let woken = WakeFlag()
    /// Continuous mode: when an idle run next looks at the store for due work.
    var idleUntil: Date?

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
        extraction = ExtractionPool(width: ExtractionPool.width(cores: ProcessInfo.processInfo.activeProcessorCount,
                                                                renders: configuration.render.rendersAny ? configuration.renderer.concurrency : 0))
        report = RunReport(id: runID, started: configuration.clock.now)
        fleet = FleetMembership(started: configuration.clock.now)
        hosts = HostTable(pageCap: configuration.maximumPagesPerHost, perHostConnections: configuration.perHostConnections)
        let inbox = self.inbox
        writer = CrawlWriter(store: store, itemWrites: try store.makeItemWriter().map { ItemWriteQueue(writer: $0, wake: { inbox.wake() }) },
                             clock: configuration.clock, interval: configuration.commitInterval)
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
            if writer.isFirstMention(key.string) { writer.batch.newURLs.append(FrontierURL(url: key, depth: 0, foundOn: "seed")) }
        }
        try flush(now: started)
        // What failed for the operator's configuration is tried again once a run may have fixed
        // it: a private address once a run allows it, a name that did not resolve (or an
        // address that did not answer) once a run gives --resolve.
        var refetch = configuration.refetch
        if configuration.fetch.addressPolicy == .any { refetch.append(.reason(SkipReason.refusedAddress.label)) }
        if !configuration.fetch.resolve.isEmpty {
            refetch += [FetchError.Kind.dns, .connect].map { .reason($0.rawValue) }
        }
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
        if configuration.continuous, let wakeUp = configuration.wakeUp {
            let (woken, inbox) = (self.woken, self.inbox)
            try wakeUp.start {
                woken.set()
                inbox.wake()
            }
        }
        defer { configuration.wakeUp?.stop() }

        var lastProgress = Date.distantPast
        var stopping: String?
        run: while true {
            let now = clock.now
            if stopping == nil {
                if shouldStop() { stopping = "signal" } else if now.timeIntervalSince(started) >= configuration.maximumTime { stopping = "max-time" }
            }
            report.deleted += try writer.recordWrittenItems()
            for event in inbox.drain() { try handle(event, now: now) }
            if stopping == nil, configuration.continuous, woken.take() { try takeNotifiedWork(now: now) }
            if stopping == nil { try dispatch(now: now) }
            if stopping == nil, hosts.dispatchedPages >= configuration.maximumPages, hosts.hasWork(now: now) { stopping = "max-pages" }
            if writer.isDue(now: now) { try flush(now: now) }
            if let progress, now.timeIntervalSince(lastProgress) >= 1 {
                progress(progressSnapshot(now: now, started: started))
                lastProgress = now
            }
            if hosts.inFlight == 0, stopping != nil || !hosts.hasWork(now: now) {
                // New links not yet written may still give hosts work.
                if stopping == nil, !writer.batch.newURLs.isEmpty {
                    try flush(now: now)
                    continue
                }
                if stopping == nil, configuration.continuous {
                    try idle(now: now)
                    continue
                }
                guard stopping == nil, store.isShared else { break }
            }
            if stopping == nil, store.isShared {
                switch fleet.decide(now: now, idle: hosts.inFlight == 0 && !hosts.hasWork(now: now)) {
                case .wait: break
                case .look: try lookForFreedHosts(now: now)
                case .askWhetherDone:
                    if try fleetIsDone(now: now) { break run }
                    if hosts.hasWork(now: now) { continue }
                }
            }
            inbox.wait(timeout: hosts.nextWakeUp(now: now))
        }
        return try finish(stoppedBy: stopping ?? "finished")
    }

    /// Continuous mode with nothing to fetch: what was fetched is committed, and the store is
    /// looked at for due work when woken, when the next URL falls due, or every poll
    /// interval (at once on a wake-up); otherwise the run sleeps in steps of half a second,
    /// so that a stop is heard.
    func idle(now: Date) throws {
        if !writer.batch.isEmpty { try flush(now: now) }
        report.deleted += try writer.recordWrittenItems()
        if now >= (idleUntil ?? .distantPast) {
            if store.isShared {
                // Hosts another worker held, or gave up, are asked for again; a share above
                // this worker's is handed back.
                try lookForFreedHosts(now: now)
            } else {
                for origin in try store.originsWithWork(now: now) { try activate(origin) }
            }
            if hosts.hasWork(now: now) {
                idleUntil = nil
                return
            }
            let next = try store.schedule(now: now).next ?? .distantFuture
            // With a wake-up, the store is still looked at now and then: a shared store for
            // hosts other workers let go, any store for a wake-up missed.
            let interval = configuration.continuousPollInterval
            let poll = configuration.wakeUp == nil ? interval : max(interval, store.isShared ? 10 : 60)
            idleUntil = min(next, now.addingTimeInterval(poll))
        }
        inbox.wait(timeout: max(0.01, min(0.5, (idleUntil ?? now).timeIntervalSince(now))))
    }

    /// A continuous run woken (a notice made URLs due): the URLs each host claimed and has
    /// not sent go back, so that its next claim takes the notified ones first
    /// (``ClaimOrder``), and hosts not crawled yet are taken up; the host's spacing holds.
    func takeNotifiedWork(now: Date) throws {
        var unsent: [Int64] = []
        for origin in hosts.order {
            guard var host = hosts[origin] else { continue }
            unsent += host.takeBuffer().map(\.id)
            host.exhausted = false
            hosts[origin] = host
        }
        try store.release(unsent)
        if store.isShared {
            try lookForFreedHosts(now: now)
        } else {
            for origin in try store.originsWithWork(now: now) { try activate(origin) }
        }
        idleUntil = nil
    }

    func progressSnapshot(now: Date, started: Date) -> CrawlProgress {
        let hosts = self.hosts.progress(now: now)
        return CrawlProgress(fetched: report.fetched, indexed: report.indexed, errors: report.skipped.values.reduce(0, +),
                             queued: hosts.reduce(0) { $0 + $1.queued }, inFlight: self.hosts.inFlight, seconds: now.timeIntervalSince(started),
                             hosts: hosts.sorted { ($0.inFlight, $0.queued, $0.pages) > ($1.inFlight, $1.queued, $1.pages) })
    }

    func finish(stoppedBy: String) throws -> RunReport {
        let end = configuration.clock.now
        var unsent: [Int64] = []
        for origin in hosts.order {
            guard var host = hosts[origin] else { continue }
            if host.hasPagesLeft, host.pagesThisRun >= configuration.maximumPagesPerHost { report.hosts[origin, default: RunReport.Host()].capped = true }
            if host.hasPagesLeft, let until = host.backoffUntil, until > end { report.skip(.hostBackingOff) }
            unsent += host.takeBuffer().map(\.id)
            hosts[origin] = host
        }
        // Claimed URLs that were never sent go back to the queue.
        try store.release(unsent)
        let finished = configuration.clock.now
        report.add(try writer.finish(now: finished, nextAllowed: hosts.readyTimes))
        report.freshness = writer.freshness
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
        guard !hosts.isDeclined(origin) else { return }
        let now = configuration.clock.now
        guard case .granted(let record) = try store.acquireHost(origin, now: now) else {
            hosts.decline(origin)
            return
        }
        var host = HostMachine(origin: origin, record: record, configuration: configuration, now: now)
        let effects = host.useCachedRobots(configuration: configuration, now: now)
        try duplicates.start(origin, store: store)
        hosts[origin] = host
        try apply(effects, for: origin)
    }

    /// Saves what a host's event changed and routes the sitemaps it found: to the host itself,
    /// or to another in scope (which learns whose robots.txt named it).
    func apply(_ effects: HostMachine.Effects, for origin: String) throws {
        if let record = effects.save { writer.batch.hosts[origin] = record }
        if let skip = effects.skip { report.skip(skip) }
        for sitemap in effects.sitemaps where admission.readsSitemap(sitemap, namedBy: origin) {
            if sitemap.origin != origin { try activate(sitemap.origin) }
            hosts[sitemap.origin]?.queueSitemap(sitemap, from: sitemap.origin == origin ? nil : origin)
        }
    }

    // MARK: writing

    /// Commits what has accumulated (``CrawlWriter/flush(now:nextAllowed:)``).
    func flush(now: Date) throws {
        report.add(try writer.flush(now: now, nextAllowed: hosts.readyTimes))
    }

    /// Writes the links found since the last flush, so that a claim sees them.
    func flushLinks(now: Date) throws {
        report.add(try writer.flushLinks(now: now, nextAllowed: hosts.readyTimes))
    }
}

@available(*, unavailable)
extension CrawlEngine: Sendable {}
