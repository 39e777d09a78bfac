import Dispatch
import Fetch
import Foundation
import SearchIndex
import Synchronization
import WebRules
import WebURL

/// One crawl run: seeds and sitemaps into the frontier, due URLs out of it under
/// per-host politeness, pages fetched on one libcurl event loop, extracted on every core,
/// and the results written to the index, the frontier and WARC files in batches.
///
/// Threads: the caller's thread coordinates (frontier, host queues, writes); the
/// ``HTTPClient`` thread fetches; a concurrent queue extracts. Events come back to the
/// coordinator through a locked inbox.
///
/// Crash safety: each flush commits the index batch first and the frontier second, and
/// index upserts are keyed by item id, so a run killed at any point loses no indexed item
/// and never indexes one twice; the next run releases the killed run's claims and fetches
/// what was not recorded.
public final class Crawler {
    public let configuration: CrawlConfiguration

    public struct Progress: Sendable {
        public var fetched: Int
        public var indexed: Int
        public var errors: Int
        public var queued: Int
        public var inFlight: Int
        public var seconds: Double
    }

    private let frontier: Frontier
    private let index: SearchIndex
    private let client: HTTPClient
    private let warc: WARCWriter?
    private let processor: PageProcessor
    private let keys: FrontierKey
    private let scope: CrawlScope
    private let extraction = DispatchQueue(label: "searchlight.extract", attributes: .concurrent)
    private let extractionSlots: DispatchSemaphore
    private let inbox = Inbox()
    private let clock: CrawlClock

    private var hosts: [String: HostState] = [:]
    private var order: [String] = []
    private var cursor = 0
    private var inFlight = 0
    private var dispatchedPages = 0
    private var seen = SeenFilter()
    private var pending = PendingWrites()
    private var report: RunReport
    private var lastFlush = Date.distantPast
    private var contentsThisRun: [String: String] = [:]

    public init(configuration: CrawlConfiguration, runID: String) throws {
        self.configuration = configuration
        clock = configuration.clock
        try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        frontier = try Frontier(path: configuration.frontierPath)
        index = try SearchIndex(path: configuration.indexPath)
        var fetch = configuration.fetch
        fetch.maximumConnectionsPerHost = configuration.perHostConnections
        fetch.maximumConnections = max(configuration.concurrency, 1)
        client = HTTPClient(configuration: fetch)
        warc = configuration.writesWARC
            ? try WARCWriter(directory: configuration.warcDirectory, software: configuration.software, maximumFileBytes: configuration.warcFileBytes)
            : nil
        keys = FrontierKey(keepsTrackingParameters: configuration.keepsTrackingParameters)
        do {
            // The scope is drawn around every seed the data folder was ever given, so that a
            // scheduled run without seed arguments keeps to the same sites.
            let keys = self.keys
            try frontier.remember(seeds: configuration.seeds.map { keys.key(for: $0) }, now: configuration.clock.now)
            scope = try CrawlScope(seeds: try frontier.seeds(), mode: configuration.scope,
                                   include: configuration.include, exclude: configuration.exclude)
        } catch {
            client.shutdown()
            throw CrawlError("\(error)")
        }
        var builder = ItemBuilder()
        builder.timeToLive = configuration.itemLifetime
        processor = PageProcessor(builder: builder, keys: keys, scope: scope)
        extractionSlots = DispatchSemaphore(value: max(2, ProcessInfo.processInfo.activeProcessorCount) * 2)
        report = RunReport(id: runID, started: configuration.clock.now)
    }

    deinit {
        client.shutdown(cancelInFlight: true)
    }

    /// Runs until there is nothing due, a limit is reached, or `shouldStop` says so; then
    /// lets in-flight pages finish, writes everything, and returns the report.
    public func run(progress: ((Progress) -> Void)? = nil, shouldStop: @escaping () -> Bool = { false }) throws -> RunReport {
        let started = clock.now
        try frontier.releaseClaims()
        // Items not confirmed within their lifetime leave the index even when nothing else is written.
        report.expired = try index.purgeExpired(now: started)
        var seeds: [Frontier.NewURL] = []
        for seed in configuration.seeds {
            let key = keys.key(for: seed)
            seeds.append(Frontier.NewURL(url: key, depth: 0, foundOn: "seed"))
            _ = seen.insert(key.string)
        }
        report.discovered += try frontier.add(seeds, now: started)
        for origin in try frontier.originsWithWork(now: started) { activate(origin) }
        if configuration.readsSitemaps {
            for origin in try frontier.originsWithSitemapsReadBefore(started.addingTimeInterval(-configuration.sitemapInterval))
            where WebURL(origin + "/").map(scope.contains) ?? false {
                activate(origin)
            }
        }
        for seed in seeds { activate(seed.url.origin) }

        var lastProgress = Date.distantPast
        var stopping: String?
        while true {
            let now = clock.now
            if stopping == nil {
                if shouldStop() { stopping = "signal" }
                else if now.timeIntervalSince(started) >= configuration.maximumTime { stopping = "max-time" }
            }
            try handle(inbox.drain(), now: now)
            if stopping == nil { try dispatch(now: now) }
            if stopping == nil, dispatchedPages >= configuration.maximumPages, hasWork { stopping = "max-pages" }
            if pending.count >= 256 || now.timeIntervalSince(lastFlush) >= 1 { try flush(now: now) }
            if let progress, now.timeIntervalSince(lastProgress) >= 1 {
                progress(Progress(fetched: report.fetched, indexed: report.indexed, errors: report.skipped.values.reduce(0, +),
                                  queued: hosts.values.reduce(0) { $0 + $1.buffer.count }, inFlight: inFlight,
                                  seconds: now.timeIntervalSince(started)))
                lastProgress = now
            }
            if inFlight == 0, stopping != nil || !hasWork {
                // New links not yet written may still give hosts work.
                guard stopping == nil, !pending.newURLs.isEmpty else { break }
                try flush(now: now)
                continue
            }
            inbox.wait(timeout: nextWakeUp(now: now))
        }
        let end = clock.now
        for host in hosts.values where host.hasPagesLeft {
            if host.pagesThisRun >= configuration.maximumPagesPerHost { report.hosts[host.origin, default: RunReport.Host()].capped = true }
            if let until = host.backoffUntil, until > end { report.skip("host-backing-off") }
        }
        try releaseBuffers()
        let finished = clock.now
        try flush(now: finished)
        try warc?.close()
        report.stoppedBy = stopping ?? "finished"
        report.finished = finished
        report.warcFiles = warc?.files ?? []
        return report
    }

    // MARK: hosts

    private func activate(_ origin: String) {
        if let host = hosts[origin] {
            host.exhausted = false
            return
        }
        let host = HostState(origin: origin, delay: configuration.delay)
        let now = clock.now
        hosts[origin] = host
        order.append(origin)
        if let record = try? frontier.host(origin) {
            host.record = record
            if let fetched = record.robotsFetched, now.timeIntervalSince(fetched) < configuration.robotsLifetime,
                let status = record.robotsStatus
            {
                let rules = Self.rules(status: status, body: record.robotsBody ?? [], origin: origin, token: configuration.productToken)
                host.robots = rules
                host.delay = max(configuration.delay, rules.crawlDelay ?? 0)
                host.phase = .association
                queueSitemaps(of: host, listedIn: rules, now: now)
            }
            if let until = record.backoffUntil, until > now { host.backoffUntil = until }
        }
        if !configuration.obeysRobots, host.phase == .robots {
            host.robots = .allowAll
            host.phase = .association
        }
    }

    private var hasWork: Bool {
        let now = clock.now
        return hosts.values.contains { hasWork($0, now: now) }
    }

    /// A host backed off for longer than this is left for a later run rather than waited for.
    static let longestWait: TimeInterval = 30

    private func hasWork(_ host: HostState, now: Date) -> Bool {
        guard host.hasWork(pageCap: configuration.maximumPagesPerHost) else { return false }
        guard host.inFlight == 0, let until = host.backoffUntil else { return true }
        return until.timeIntervalSince(now) <= Self.longestWait
    }

    private func nextWakeUp(now: Date) -> TimeInterval {
        var wake = 0.2
        for host in hosts.values where hasWork(host, now: now) && host.inFlight < configuration.perHostConnections {
            let ready = max(host.nextAllowed, host.backoffUntil ?? .distantPast)
            wake = min(wake, max(0.001, ready.timeIntervalSince(now)))
        }
        return wake
    }

    // MARK: dispatching

    private func dispatch(now: Date) throws {
        guard !order.isEmpty else { return }
        var visited = 0
        while visited < order.count, inFlight < configuration.concurrency {
            let origin = order[cursor % order.count]
            cursor += 1
            visited += 1
            guard let host = hosts[origin] else { continue }
            try dispatch(host, now: now)
        }
    }

    private func canSend(_ host: HostState, now: Date) -> Bool {
        host.inFlight < configuration.perHostConnections && now >= host.nextAllowed && inFlight < configuration.concurrency
            && (host.backoffUntil.map { now >= $0 } ?? true)
    }

    private func dispatch(_ host: HostState, now: Date) throws {
        let origin = host.origin
        switch host.phase {
        case .robots:
            host.phase = .waiting
            host.specials.append(Special(url: origin + "/robots.txt") { .robots(origin, $0, 0) })
        case .association:
            guard origin.hasPrefix("https:") else {
                host.phase = .ready
                break
            }
            host.phase = .waiting
            host.associationPending = 2
            host.specials.append(Special(url: origin + "/.well-known/apple-app-site-association") { .association(origin, .aasaWellKnown, $0) })
            host.specials.append(Special(url: origin + "/.well-known/assetlinks.json") { .association(origin, .assetLinks, $0) })
        case .waiting, .ready, .refused, .unavailable:
            break
        }
        // Every request to the host, robots.txt and association files included, passes the
        // same politeness gate.
        while canSend(host, now: now), !host.specials.isEmpty {
            let special = host.specials.removeFirst()
            startSpecial(host, url: special.url, now: now, event: special.event)
        }
        guard host.phase == .ready || host.phase == .refused else { return }
        while canSend(host, now: now) {
            if let sitemap = host.sitemapQueue.first, host.phase == .ready {
                host.sitemapQueue.removeFirst()
                let crossSubmit = host.crossSubmit[sitemap.string] ?? []
                startSpecial(host, url: sitemap.string, now: now) { .sitemap(origin, sitemap, crossSubmit, $0) }
                continue
            }
            guard dispatchedPages < configuration.maximumPages, host.pagesThisRun < configuration.maximumPagesPerHost else { return }
            if host.buffer.isEmpty, !host.exhausted {
                // Links found since the last flush are only claimable once written.
                if !pending.newURLs.isEmpty { try flush(now: now) }
                host.buffer = try frontier.claim(origin: host.origin, now: now, limit: 32)
                if host.buffer.isEmpty { host.exhausted = true }
            }
            guard !host.buffer.isEmpty else { return }
            let entry = host.buffer.removeFirst()
            if host.phase == .refused {
                report.skip("refused-address")
                pending.excluded(entry, reason: "refused-address", due: now.addingTimeInterval(86_400), deleteItem: false)
                continue
            }
            if let robots = host.robots, !robots.allows(entry.url) {
                report.skip("robots")
                pending.excluded(entry, reason: "robots", due: now.addingTimeInterval(robots.access == .disallowAll ? 3600 : configuration.robotsLifetime),
                                 deleteItem: true)
                continue
            }
            var headers: [HTTPHeader] = []
            if entry.fetched {
                if let etag = entry.etag { headers.append(HTTPHeader("If-None-Match", etag)) }
                if let modified = entry.lastModified { headers.append(HTTPHeader("If-Modified-Since", modified)) }
            }
            host.inFlight += 1
            host.pagesThisRun += 1
            inFlight += 1
            dispatchedPages += 1
            host.lastRequest = now
            host.nextAllowed = now.addingTimeInterval(host.delay)
            let context = PageProcessor.HostContext(association: host.association, assetLinks: host.assetLinks)
            let processor = self.processor
            let writesWARC = warc != nil
            let inbox = self.inbox
            let slots = extractionSlots
            let extraction = self.extraction
            let clock = self.clock
            client.start(FetchRequest(url: entry.url.string, headers: headers)) { response in
                // On the fetch thread: hand the work to an extraction thread at once.
                slots.wait()
                extraction.async {
                    let result = processor.process(response, entry: entry, host: context, writesWARC: writesWARC, now: clock.now)
                    slots.signal()
                    inbox.post(.page(result))
                }
            }
        }
    }

    private func startSpecial(_ host: HostState, url: String, now: Date, event: @escaping @Sendable (FetchResponse) -> Event) {
        host.inFlight += 1
        inFlight += 1
        host.lastRequest = now
        host.nextAllowed = now.addingTimeInterval(host.delay)
        let inbox = self.inbox
        client.start(FetchRequest(url: url)) { inbox.post(event($0)) }
    }


    // MARK: events

    private func handle(_ events: [Event], now: Date) throws {
        for event in events {
            switch event {
            case .page(let result): try handlePage(result, now: now)
            case .robots(let origin, let response, let hops): handleRobots(origin, response, hops: hops, now: now)
            case .association(let origin, let kind, let response): handleAssociation(origin, kind, response, now: now)
            case .sitemap(let origin, let url, let crossSubmit, let response): try handleSitemap(origin, url, crossSubmit, response, now: now)
            }
        }
    }

    private func finished(_ origin: String) -> HostState? {
        guard let host = hosts[origin] else { return nil }
        host.inFlight -= 1
        inFlight -= 1
        return host
    }

    private static func rules(status: Int, body: [UInt8], origin: String, token: String) -> RobotsRules {
        guard (200..<300).contains(status) else { return .forStatus(status) }
        return RobotsRules(parsing: body, productToken: token, robotsURL: WebURL(origin + "/robots.txt"))
    }

    private func handleRobots(_ origin: String, _ response: FetchResponse, hops: Int, now: Date) {
        guard let host = finished(origin) else { return }
        archive(response)
        // RFC 9309: follow at least five redirects; the rules apply to the first authority.
        if response.isRedirect, let target = response.redirectURL, hops < 5 {
            host.specials.insert(Special(url: target) { .robots(origin, $0, hops + 1) }, at: 0)
            return
        }
        if response.error?.reason == "refused-address" {
            // The host resolves to an address we may not connect to: none of its pages will do.
            host.phase = .refused
            return
        }
        let status = response.error == nil ? (response.isRedirect ? 404 : response.status) : 599
        let rules: RobotsRules
        if status >= 500 || status == 429 {
            // RFC 9309 §2.3.1.3-4: unreachable means disallow all, but a cached copy may stand
            // in for up to 30 days; without one the host waits for the next run, its URLs and
            // items untouched.
            guard let record = host.record, let cached = record.robotsStatus, cached < 500,
                let fetched = record.robotsFetched, now.timeIntervalSince(fetched) < 30 * 86_400
            else {
                report.skip("robots-unreachable")
                host.phase = .unavailable
                return
            }
            report.skip("robots-unreachable-cached-copy-used")
            rules = Self.rules(status: cached, body: record.robotsBody ?? [], origin: origin, token: configuration.productToken)
        } else {
            rules = Self.rules(status: status, body: response.body, origin: origin, token: configuration.productToken)
            var record = host.record ?? Frontier.HostRecord(origin: origin)
            record.robotsStatus = status
            record.robotsBody = Array(response.body.prefix(RobotsRules.maximumBytes))
            record.robotsFetched = now
            host.record = record
            pending.hosts[origin] = record
        }
        host.robots = rules
        host.delay = max(configuration.delay, rules.crawlDelay ?? 0)
        host.nextAllowed = max(host.nextAllowed, (host.lastRequest ?? now).addingTimeInterval(host.delay))
        queueSitemaps(of: host, listedIn: rules, now: now)
        host.phase = .association
    }

    /// Queues the sitemaps robots.txt lists (else `/sitemap.xml`) unless they were read
    /// less than `sitemapInterval` ago.
    private func queueSitemaps(of host: HostState, listedIn rules: RobotsRules, now: Date) {
        guard configuration.readsSitemaps else { return }
        var record = host.record ?? Frontier.HostRecord(origin: host.origin)
        if let read = record.sitemapsFetched, now.timeIntervalSince(read) < configuration.sitemapInterval { return }
        record.sitemapsFetched = now
        host.record = record
        pending.hosts[host.origin] = record
        let origin = host.origin
        var sitemaps = rules.sitemaps.compactMap(WebURL.init)
        if sitemaps.isEmpty, let fallback = WebURL(origin + "/sitemap.xml") { sitemaps = [fallback] }
        for sitemap in sitemaps {
            guard scope.contains(sitemap) || sitemap.origin == origin else { continue }
            let target = sitemap.origin == origin ? host : hostForSitemap(sitemap.origin)
            if sitemap.origin != origin { target.crossSubmit[sitemap.string, default: []].insert(origin) }
            if !target.queuedSitemaps.contains(sitemap.string) {
                target.queuedSitemaps.insert(sitemap.string)
                target.sitemapQueue.append(sitemap)
            }
        }
    }

    private func hostForSitemap(_ origin: String) -> HostState {
        activate(origin)
        return hosts[origin]!
    }

    private func handleAssociation(_ origin: String, _ kind: Event.AssociationFile, _ response: FetchResponse, now: Date) {
        guard let host = finished(origin) else { return }
        archive(response)
        // No redirects: Apple and Android both reject a redirected association file.
        let body = response.isSuccess ? response.body : nil
        switch kind {
        case .aasaWellKnown, .aasaRoot:
            if let body, let association = AppSiteAssociation(parsing: body) {
                host.association = association
                host.record?.aasaBody = body
            } else if kind == .aasaWellKnown {
                host.specials.insert(Special(url: origin + "/apple-app-site-association") { .association(origin, .aasaRoot, $0) }, at: 0)
                return
            }
        case .assetLinks:
            if let body, let links = AssetLinks(parsing: body) {
                host.assetLinks = links
                host.record?.assetLinksBody = body
            }
        }
        host.associationPending -= 1
        if host.associationPending == 0 {
            host.phase = .ready
            if var record = host.record {
                record.associationFetched = now
                pending.hosts[origin] = record
            }
        }
    }

    private func handleSitemap(_ origin: String, _ url: WebURL, _ crossSubmit: Set<String>, _ response: FetchResponse, now: Date) throws {
        guard let host = finished(origin) else { return }
        archive(response)
        guard response.isSuccess else {
            // A site without /sitemap.xml (tried when robots.txt names none) is no error;
            // any other failure of it, a cut body say, is counted like a listed sitemap's.
            let missingFallback = url.path == "/sitemap.xml" && response.error == nil && [404, 410].contains(response.status)
            if !missingFallback { report.skip("sitemap-\(response.error?.reason ?? "http-\(response.status)")") }
            return
        }
        let sitemap = Sitemap(parsing: response.body, url: url, crossSubmitOrigins: crossSubmit)
        if sitemap.error != nil {
            report.skip("sitemap-invalid")
            return
        }
        report.sitemaps += 1
        for (reason, count) in sitemap.skipped { report.skip("sitemap-\(reason)", count: count) }
        for entry in sitemap.entries {
            if sitemap.kind == .index {
                guard host.queuedSitemaps.count < 1000, !host.queuedSitemaps.contains(entry.location.string),
                    scope.contains(entry.location) || entry.location.origin == origin
                else { continue }
                let target = entry.location.origin == origin ? host : hostForSitemap(entry.location.origin)
                target.queuedSitemaps.insert(entry.location.string)
                target.sitemapQueue.append(entry.location)
                continue
            }
            report.sitemapURLs += 1
            let key = keys.key(for: entry.location)
            guard scope.contains(key) else {
                report.skip("out-of-scope")
                continue
            }
            pending.sitemapNotes.append((key, entry.lastModified, entry.changeFrequency?.rawValue))
            if seen.insert(key.string) {
                pending.newURLs.append(Frontier.NewURL(url: key, depth: 1, foundOn: url.string, fromSitemap: true, priority: entry.priority,
                                                       changeFrequency: entry.changeFrequency?.rawValue, sitemapLastModified: entry.lastModified))
                activate(key.origin)
            }
        }
    }

    private func handlePage(_ result: PageProcessor.Result, now: Date) throws {
        let entry = result.entry
        guard let host = finished(entry.origin) else { return }
        report.fetched += 1
        report.bytes += result.bytes
        report.hosts[entry.origin, default: RunReport.Host()].fetched += 1
        report.hosts[entry.origin, default: RunReport.Host()].bytes += result.bytes
        var outcome = Frontier.Outcome(
            id: entry.id, state: .done, due: now.addingTimeInterval(configuration.revisit.initial), status: result.status,
            etag: result.etag ?? entry.etag, lastModified: result.lastModified ?? entry.lastModified, contentHash: entry.contentHash,
            itemID: entry.itemID, failures: 0, firstFailure: nil, interval: entry.interval, redirectedTo: nil, changed: false)
        var warcRecords = result.warc
        /// The next visit: sooner when the page changed, later when it did not.
        func revisit(changed: Bool) {
            let frequency = entry.changeFrequency.flatMap(Sitemap.ChangeFrequency.init(rawValue:))
            let interval = configuration.revisit.interval(after: entry.interval, changed: changed, changeFrequency: frequency)
            outcome.interval = interval
            outcome.changed = changed && entry.fetched
            // Come back before the item would expire unconfirmed.
            let beforeExpiry = max(configuration.revisit.minimum, configuration.itemLifetime - 86_400)
            outcome.due = now.addingTimeInterval(min(interval, beforeExpiry))
        }

        switch result.kind {
        case .indexed(let item):
            let hash = result.digest?.description
            outcome.contentHash = hash
            revisit(changed: hash != entry.contentHash)
            if let hash, let original = try duplicateOf(hash, url: entry.url.string) {
                report.skip("duplicate")
                if let digest = result.digest, warc != nil, let head = result.head {
                    // The body is archived already: a revisit record points at it.
                    warcRecords = WARCWriter.records(for: head, url: entry.url.string, digest: digest, duplicateOf: original)
                }
                if let old = entry.itemID { pending.delete(old) }
                outcome.itemID = nil
            } else {
                if let hash { contentsThisRun[hash] = entry.url.string; pending.contents.append((hash, entry.url.string)) }
                pending.upserts.append(item)
                if let old = entry.itemID, old != item.uniqueIdentifier { pending.delete(old) }
                outcome.itemID = item.uniqueIdentifier
                report.indexed += 1
                report.hosts[entry.origin, default: RunReport.Host()].indexed += 1
            }
        case .notIndexed(let reason):
            report.skip(reason)
            if let hash = result.digest?.description {
                outcome.contentHash = hash
                revisit(changed: hash != entry.contentHash)
            } else {
                revisit(changed: true)
            }
            if let old = entry.itemID {
                pending.delete(old)
                outcome.itemID = nil
            }
        case .notModified:
            report.notModified += 1
            outcome.status = 304
            revisit(changed: false)
            if let item = entry.itemID { pending.confirmations[item] = now.addingTimeInterval(configuration.itemLifetime) }
        case .redirect(let target):
            report.redirects += 1
            outcome.redirectedTo = target.string
            revisit(changed: false)
            if let old = entry.itemID, old != target.string {
                pending.delete(old)
                outcome.itemID = nil
            }
            if entry.redirects >= 10 {
                report.skip("too-many-redirects")
            } else if let trap = URLTrap.reason(target) {
                report.skip(trap)
            } else if !scope.contains(target) {
                // A redirect off the crawl's scope is not followed, like a link would not be.
                report.skip("redirect-out-of-scope")
            } else {
                addLink(target, depth: entry.depth, redirects: entry.redirects + 1, foundOn: entry.url.string)
            }
        case .gone:
            report.skip("http-\(result.status)")
            outcome.state = .gone
            outcome.due = now.addingTimeInterval(configuration.revisit.goneInterval)
            if let old = entry.itemID {
                pending.delete(old)
                outcome.itemID = nil
            }
        case .failed(let reason, let backOff):
            report.skip(reason)
            if let backOff { backOffHost(host, for: backOff, now: now) }
            report.hosts[entry.origin, default: RunReport.Host()].errors += 1
            outcome.state = .failing
            outcome.failures = entry.failures + 1
            let firstFailure = entry.firstFailure ?? now
            outcome.firstFailure = firstFailure
            outcome.due = now.addingTimeInterval(configuration.revisit.retryDelay(afterFailures: outcome.failures))
            // The item stays through a transient failure, until the grace period is over.
            if let old = entry.itemID, now.timeIntervalSince(firstFailure) >= configuration.failureGracePeriod {
                report.skip("failing-beyond-grace-period")
                pending.delete(old)
                outcome.itemID = nil
            }
        case .throttled(let retryAfter):
            report.skip("throttled")
            backOffHost(host, for: retryAfter, now: now)
            pending.postponed.append((entry.id, now.addingTimeInterval(retryAfter)))
            writeWARC(warcRecords)
            return
        case .refused(let reason):
            report.skip(reason)
            report.hosts[entry.origin, default: RunReport.Host()].errors += 1
            outcome.state = .excluded
            outcome.due = now.addingTimeInterval(86_400)
        }
        for (reason, count) in result.droppedLinks { report.skip(reason, count: count) }
        if entry.depth + 1 <= configuration.maximumDepth {
            for link in result.links { addLink(link, depth: entry.depth + 1, redirects: 0, foundOn: entry.url.string) }
        } else if !result.links.isEmpty {
            report.skip("too-deep", count: result.links.count)
        }
        pending.outcomes.append(outcome)
        writeWARC(warcRecords)
    }

    /// 429 and 503: no request to the host until `seconds` have passed, in this run or the next.
    private func backOffHost(_ host: HostState, for seconds: TimeInterval, now: Date) {
        host.backoffUntil = max(host.backoffUntil ?? now, now.addingTimeInterval(seconds))
        var record = host.record ?? Frontier.HostRecord(origin: host.origin)
        record.backoffUntil = host.backoffUntil
        host.record = record
        pending.hosts[host.origin] = record
    }

    private func duplicateOf(_ hash: String, url: String) throws -> String? {
        if let first = contentsThisRun[hash] { return first == url ? nil : first }
        guard let first = try frontier.firstURL(withContent: hash), first != url else { return nil }
        return first
    }

    private func addLink(_ url: WebURL, depth: Int, redirects: Int, foundOn: String) {
        guard seen.insert(url.string) else { return }
        pending.newURLs.append(Frontier.NewURL(url: url, depth: depth, foundOn: foundOn, redirects: redirects))
        activate(url.origin)
    }

    /// Archives a robots.txt, sitemap or association-file fetch.
    private func archive(_ response: FetchResponse) {
        guard warc != nil, response.error == nil else { return }
        writeWARC(WARCWriter.records(for: response, url: response.request.url, digest: ContentDigest(of: response.body), duplicateOf: nil))
    }

    private func writeWARC(_ records: [UInt8]) {
        guard let warc, !records.isEmpty else { return }
        do {
            try warc.write(records)
        } catch {
            report.skip("warc-write-error")
        }
    }

    // MARK: writing

    /// Commits what has accumulated: the index first, then the frontier (see the type's
    /// note on crash safety).
    private func flush(now: Date) throws {
        lastFlush = now
        guard !pending.isEmpty else { return }
        if !pending.upserts.isEmpty || !pending.deletes.isEmpty || !pending.confirmations.isEmpty {
            var batch = SearchIndex.Batch(upserts: pending.upserts, deleteIdentifiers: Array(pending.deletes))
            batch.confirmations = pending.confirmations
            let result = try index.commit(batch, now: now)
            report.deleted += result.deleted
        }
        try frontier.connection.transaction {
            report.discovered += try frontier.add(pending.newURLs, now: now)
            for (url, lastModified, frequency) in pending.sitemapNotes where lastModified != nil || frequency != nil {
                try frontier.noteSitemapEntry(url, lastModified: lastModified, changeFrequency: frequency, now: now)
            }
            try frontier.record(pending.outcomes, now: now)
            for (id, due) in pending.postponed { try frontier.postpone(id, until: due) }
            for (hash, url) in pending.contents { try frontier.recordContent(hash, url: url) }
            for record in pending.hosts.values { try frontier.save(record) }
        }
        pending = PendingWrites()
    }

    /// Claimed URLs that were never sent go back to the queue.
    private func releaseBuffers() throws {
        let ids = hosts.values.flatMap { $0.buffer.map(\.id) }
        for host in hosts.values { host.buffer.removeAll() }
        try frontier.release(ids)
    }
}

@available(*, unavailable)
extension Crawler: Sendable {}

/// What the fetch and extraction threads hand back to the coordinator.
enum Event: Sendable {
    enum AssociationFile: Sendable {
        case aasaWellKnown, aasaRoot, assetLinks
    }

    case page(PageProcessor.Result)
    case robots(String, FetchResponse, Int)
    case association(String, AssociationFile, FetchResponse)
    case sitemap(String, WebURL, Set<String>, FetchResponse)
}

/// The coordinator's mailbox.
final class Inbox: Sendable {
    private let events = Mutex<[Event]>([])
    private let signal = DispatchSemaphore(value: 0)

    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        signal.signal()
    }

    func drain() -> [Event] {
        events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }

    /// Waits until something is posted or `timeout` seconds pass.
    func wait(timeout: TimeInterval) {
        _ = signal.wait(timeout: .now() + timeout)
    }
}

/// One origin's politeness state and queue.
final class HostState {
    enum Phase {
        /// robots.txt must be read first.
        case robots
        /// Association files (https origins) come next.
        case association
        /// A robots.txt or association fetch is out.
        case waiting
        case ready
        /// The host resolves to an address the crawl may not connect to.
        case refused
        /// robots.txt could not be read and no cached copy stands in: nothing this run.
        case unavailable
    }

    let origin: String
    var phase = Phase.robots
    var robots: RobotsRules?
    var association: AppSiteAssociation?
    var assetLinks: AssetLinks?
    var associationPending = 0
    var record: Frontier.HostRecord?
    var delay: TimeInterval
    var nextAllowed = Date.distantPast
    var lastRequest: Date?
    var backoffUntil: Date?
    /// robots.txt and association-file requests waiting to be sent, before any page.
    var specials: [Special] = []
    var inFlight = 0
    var pagesThisRun = 0
    var buffer: [Frontier.Entry] = []
    /// True when the frontier had nothing due for this origin at the last look.
    var exhausted = false
    var sitemapQueue: [WebURL] = []
    var queuedSitemaps = Set<String>()
    /// For a sitemap hosted here, the origins whose robots.txt named it.
    var crossSubmit: [String: Set<String>] = [:]

    init(origin: String, delay: TimeInterval) {
        self.origin = origin
        self.delay = delay
    }

    /// Whether the host can still do something this run, `pageCap` pages at most.
    func hasWork(pageCap: Int) -> Bool {
        if inFlight > 0 || !specials.isEmpty { return true }
        switch phase {
        case .robots, .association, .waiting: return true
        case .ready: if !sitemapQueue.isEmpty { return true }
        case .refused: break
        case .unavailable: return false
        }
        return hasPagesLeft && pagesThisRun < pageCap
    }

    /// URLs claimed or possibly claimable.
    var hasPagesLeft: Bool { !buffer.isEmpty || !exhausted }
}

/// A request for a host's own files (robots.txt, association files), and the event its
/// response becomes.
struct Special {
    var url: String
    var event: @Sendable (FetchResponse) -> Event
}

/// Writes waiting for the next flush.
struct PendingWrites {
    var upserts: [SearchableItem] = []
    var deletes = Set<String>()
    var confirmations: [String: Date] = [:]
    var outcomes: [Frontier.Outcome] = []
    var newURLs: [Frontier.NewURL] = []
    var sitemapNotes: [(WebURL, Date?, String?)] = []
    var postponed: [(Int64, Date)] = []
    var contents: [(String, String)] = []
    var hosts: [String: Frontier.HostRecord] = [:]

    var count: Int { upserts.count + deletes.count + outcomes.count }

    var isEmpty: Bool {
        upserts.isEmpty && deletes.isEmpty && confirmations.isEmpty && outcomes.isEmpty && newURLs.isEmpty && sitemapNotes.isEmpty
            && postponed.isEmpty && contents.isEmpty && hosts.isEmpty
    }

    mutating func delete(_ id: String) {
        deletes.insert(id)
        upserts.removeAll { $0.uniqueIdentifier == id }
    }

    mutating func excluded(_ entry: Frontier.Entry, reason: String, due: Date, deleteItem: Bool) {
        if deleteItem, let item = entry.itemID { delete(item) }
        outcomes.append(Frontier.Outcome(
            id: entry.id, state: .excluded, due: due, status: nil, etag: entry.etag, lastModified: entry.lastModified,
            contentHash: entry.contentHash, itemID: deleteItem ? nil : entry.itemID, failures: entry.failures,
            firstFailure: entry.firstFailure, interval: entry.interval, redirectedTo: nil, changed: false))
    }
}

/// Hashes of URLs already queued in this run, so that most duplicate links never reach
/// SQLite. A fixed table of 64-bit FNV-1a hashes (8 MB) keeps memory flat however many
/// URLs a run sees; a slot taken by another URL is overwritten, so a URL seen long ago
/// may be tried again, and the frontier's UNIQUE key drops it then.
struct SeenFilter {
    private var slots = [UInt64](repeating: 0, count: 1 << 20)

    /// True when `url` was not seen yet (and is now).
    mutating func insert(_ url: String) -> Bool {
        var url = url
        var hash: UInt64 = url.withUTF8 { bytes in
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return hash
        }
        if hash == 0 { hash = 1 }
        let slot = Int(hash & UInt64(slots.count - 1))
        if slots[slot] == hash { return false }
        slots[slot] = hash
        return true
    }
}
