import Fetch
import Foundation
import HTTPTypes
import PageItems
import StoreSeams
import WebRules
import WebURL

/// One origin's state in a crawl run, as a value whose event methods return what to do
/// (swift-nio's state-machine style): robots.txt first, then the association files of an
/// https origin, then its sitemaps and pages, every request through one politeness gate —
/// at most `perHost` at once, one per `delay`, none while the host asked to back off.
struct HostMachine {
    enum Phase: Sendable, Equatable {
        /// robots.txt must be read first.
        case robots
        /// Association files (https origins) come next.
        case association
        /// A robots.txt or association-file request is out.
        case waiting
        case ready
        /// The host resolves to an address the crawl may not connect to.
        case refused
        /// robots.txt could not be read and no cached copy stands in: nothing this run.
        case unavailable
    }

    /// One of the host's own files to fetch.
    enum File: Sendable {
        case robots(hops: Int)
        case association(HostFiles.AssociationFile)
        case sitemap(WebURL, crossSubmit: Set<String>)

        /// Overrides the fetch's body bound for files that have a smaller one.
        var maximumBodyBytes: Int? {
            if case .association = self { return HostFiles.AssociationFile.maximumBytes }
            return nil
        }
    }

    enum Action: Sendable {
        case fetchFile(url: String, File)
        /// The buffer of claimed URLs is empty: claim more and ``supply(_:)`` them.
        case claim
        case fetchPage(FrontierEntry, headers: [HTTPField])
        /// Not fetched: recorded as excluded for this reason.
        case exclude(FrontierEntry, SkipReason, due: Date, deleteItem: Bool)
    }

    /// What an event changed beyond the machine: a record to save, a skip to count,
    /// sitemaps found (for this host or others).
    struct Effects: Sendable {
        var save: HostRecord?
        var skip: SkipReason?
        var sitemaps: [WebURL] = []
    }

    struct Limits {
        var perHost: Int
        /// The run may start another request (its global concurrency is not reached).
        var globalSlot: Bool
        /// The run may fetch another page (`--max-pages` not reached).
        var pageSlot: Bool
        var pageCap: Int
    }

    let origin: String
    private(set) var phase = Phase.robots
    private(set) var robots: RobotsRules?
    private(set) var associations = ItemBuilder.Associations()
    private var associationPending = 0
    private(set) var record: HostRecord?
    private var delay: TimeInterval
    private let robotsLifetime: TimeInterval
    /// `--no-trap-detection` turns the URL-pattern budget off.
    private let trapDetection: Bool
    private(set) var nextAllowed = Date.distantPast
    private var lastRequest: Date?
    private(set) var backoffUntil: Date?
    private var files: [(url: String, file: File)] = []
    private(set) var inFlight = 0
    private(set) var pagesThisRun = 0
    private var buffer: [FrontierEntry] = []
    /// True when the frontier had nothing due for this origin at the last look.
    var exhausted = false
    private var sitemapQueue: [WebURL] = []
    private var sitemapsInFlight = 0
    private var queuedSitemaps = Set<String>()
    /// For a sitemap hosted here, the origins whose robots.txt named it.
    private var crossSubmit: [String: Set<String>] = [:]
    /// The host's URL templates and their yield: new URLs of a trap are not fetched.
    var patterns = URLPatternBudget()

    static let maximumSitemaps = 1000
    /// A URL of a trap template comes up again after this long (its template is judged
    /// afresh each run).
    static let trapRecheck: TimeInterval = 30 * 86_400

    /// A host as the run first meets it: a fresh enough cached robots.txt skips its fetch.
    init(origin: String, record: HostRecord?, configuration: CrawlConfiguration, now: Date) {
        self.origin = origin
        self.record = record
        delay = configuration.delay
        robotsLifetime = configuration.robotsLifetime
        trapDetection = configuration.trapDetection
        if let until = record?.backoffUntil, until > now { backoffUntil = until }
        if let next = record?.nextAllowed, next > now { nextAllowed = next }
        if !configuration.obeysRobots {
            robots = .allowAll
            phase = .association
        }
    }

    /// Uses a cached robots.txt younger than `robotsLifetime`, if the record has one.
    mutating func useCachedRobots(configuration: CrawlConfiguration, now: Date) -> Effects {
        guard phase == .robots, let record, let fetched = record.robotsFetched,
            now.timeIntervalSince(fetched) < configuration.robotsLifetime, let status = record.robotsStatus
        else { return Effects() }
        return adopt(HostFiles.rules(status: status, body: record.robotsBody ?? [], origin: origin, token: configuration.productToken),
                     configuration: configuration, now: now)
    }

    // MARK: requests

    private func canSend(_ now: Date, _ limits: Limits) -> Bool {
        inFlight < limits.perHost && now >= nextAllowed && limits.globalSlot && (backoffUntil.map { now >= $0 } ?? true)
    }

    private mutating func sent(_ now: Date) {
        inFlight += 1
        lastRequest = now
        nextAllowed = now.addingTimeInterval(delay)
    }

    /// Requests made to this host outside its page schedule — a rendered page's scripts and
    /// data, fetched by the renderer — count as pages did: the next page waits a delay for
    /// each (at most ``maximumCountedRequests`` of them).
    mutating func counted(requests: Int, now: Date) {
        guard requests > 0 else { return }
        nextAllowed = max(nextAllowed, now).addingTimeInterval(delay * Double(min(requests, Self.maximumCountedRequests)))
    }

    /// A render fetches at most 100 requests (``Renderer/Configuration/maximumRequests``).
    static let maximumCountedRequests = 100

    /// The next thing to do for this host now, if anything.
    mutating func next(now: Date, limits: Limits) -> Action? {
        switch phase {
        case .robots:
            phase = .waiting
            files.append((origin + "/robots.txt", .robots(hops: 0)))
        case .association:
            if origin.hasPrefix("https:"), let record, let fetched = record.associationFetched,
                now.timeIntervalSince(fetched) < robotsLifetime
            {
                // Read by this crawl (or another worker) within robots.txt's lifetime: reuse.
                associations.apple = record.aasaBody.flatMap(AppSiteAssociation.init(parsing:))
                associations.android = record.assetLinksBody.flatMap(AssetLinks.init(parsing:))
                phase = .ready
            } else if origin.hasPrefix("https:") {
                phase = .waiting
                associationPending = 2
                // What arrives now replaces what an older fetch left, including nothing.
                record?.aasaBody = nil
                record?.assetLinksBody = nil
                files.append((HostFiles.AssociationFile.appleWellKnown.url(origin), .association(.appleWellKnown)))
                files.append((HostFiles.AssociationFile.android.url(origin), .association(.android)))
            } else {
                phase = .ready
            }
        case .waiting, .ready, .refused, .unavailable:
            break
        }
        guard canSend(now, limits) else { return nil }
        if !files.isEmpty {
            let (url, file) = files.removeFirst()
            sent(now)
            return .fetchFile(url: url, file)
        }
        guard phase == .ready || phase == .refused else { return nil }
        if phase == .ready, !sitemapQueue.isEmpty {
            let sitemap = sitemapQueue.removeFirst()
            sent(now)
            sitemapsInFlight += 1
            return .fetchFile(url: sitemap.string, .sitemap(sitemap, crossSubmit: crossSubmit[sitemap.string] ?? []))
        }
        guard limits.pageSlot, pagesThisRun < limits.pageCap else { return nil }
        guard !buffer.isEmpty else { return exhausted ? nil : .claim }
        let entry = buffer.removeFirst()
        if phase == .refused {
            return .exclude(entry, .refusedAddress, due: now.addingTimeInterval(86_400), deleteItem: false)
        }
        if let robots, !robots.allows(entry.url) {
            let due = now.addingTimeInterval(robots.access == .disallowAll ? 3600 : robotsLifetime)
            return .exclude(entry, .robots, due: due, deleteItem: true)
        }
        // A URL the host's sitemap lists was declared by its owner: never a trap's.
        if !entry.fetched, !entry.fromSitemap, isTrapped(entry.url) {
            return .exclude(entry, .trapPattern, due: now.addingTimeInterval(Self.trapRecheck), deleteItem: false)
        }
        var headers: [HTTPField] = []
        if entry.fetched {
            if let etag = entry.etag { headers.append(HTTPField("If-None-Match", etag)) }
            if let modified = entry.lastModified { headers.append(HTTPField("If-Modified-Since", modified)) }
        }
        sent(now)
        pagesThisRun += 1
        return .fetchPage(entry, headers: headers)
    }

    /// URLs claimed for this host; none means the frontier has nothing due for it now.
    mutating func supply(_ entries: [FrontierEntry]) {
        buffer += entries
        if entries.isEmpty { exhausted = true }
    }

    /// Claimed URLs never sent, handed back (the run is over).
    mutating func takeBuffer() -> [FrontierEntry] {
        defer { buffer.removeAll() }
        return buffer
    }

    /// A request to this host came back, whatever it was.
    mutating func finished() { inFlight -= 1 }

    /// A sitemap request came back (after ``finished()``).
    mutating func sitemapFinished() { sitemapsInFlight -= 1 }

    // MARK: events

    mutating func robotsArrived(_ verdict: HostFiles.RobotsVerdict, hops: Int, configuration: CrawlConfiguration, now: Date) -> Effects {
        switch verdict {
        case .redirect(let target):
            files.insert((target, .robots(hops: hops + 1)), at: 0)
            return Effects()
        case .refused:
            phase = .refused
            return Effects()
        case .unavailable:
            phase = .unavailable
            return Effects(skip: .robotsUnreachable)
        case .rules(let rules, let updated, let cached):
            if let updated { record = updated }
            var effects = adopt(rules, configuration: configuration, now: now)
            if updated != nil, effects.save == nil { effects.save = record }
            if cached { effects.skip = .robotsUnreachableCachedCopyUsed }
            return effects
        }
    }

    /// Takes robots rules: the delay they ask for, the sitemaps they list (read again at
    /// most every `sitemapInterval`), and on to the association files.
    private mutating func adopt(_ rules: RobotsRules, configuration: CrawlConfiguration, now: Date) -> Effects {
        robots = rules
        delay = max(configuration.delay, rules.crawlDelay ?? 0)
        nextAllowed = max(nextAllowed, (lastRequest ?? now).addingTimeInterval(delay))
        phase = .association
        var effects = Effects()
        guard configuration.readsSitemaps else { return effects }
        var updated = record ?? HostRecord(origin: origin)
        if let read = updated.sitemapsFetched, now.timeIntervalSince(read) < configuration.sitemapInterval { return effects }
        updated.sitemapsFetched = now
        record = updated
        effects.save = updated
        effects.sitemaps = rules.sitemaps.compactMap(WebURL.init)
        if effects.sitemaps.isEmpty { effects.sitemaps = Sitemap.wellKnownPaths.compactMap { WebURL(origin + $0) } }
        return effects
    }

    mutating func associationArrived(_ verdict: HostFiles.AssociationVerdict, now: Date) -> Effects {
        switch verdict {
        case .tryRoot:
            files.insert((HostFiles.AssociationFile.appleRoot.url(origin), .association(.appleRoot)), at: 0)
            return Effects()
        case .apple(let association, let body):
            associations.apple = association
            record?.aasaBody = body
        case .android(let links, let body):
            associations.android = links
            record?.assetLinksBody = body
        case .none:
            break
        }
        associationPending -= 1
        guard associationPending == 0 else { return Effects() }
        phase = .ready
        guard var updated = record else { return Effects() }
        updated.associationFetched = now
        record = updated
        return Effects(save: updated)
    }

    /// Whether `url` follows a template of this host that yields nothing new (and trap
    /// detection is on): the one place that says so, for links found and URLs due alike.
    func isTrapped(_ url: WebURL) -> Bool {
        trapDetection && patterns.isTrapped(url)
    }

    /// Queues a sitemap hosted here (`from` the origin whose robots.txt named it, when
    /// another); false when it was queued before or too many were.
    @discardableResult
    mutating func queueSitemap(_ sitemap: WebURL, from other: String? = nil) -> Bool {
        if let other { crossSubmit[sitemap.string, default: []].insert(other) }
        guard queuedSitemaps.count < Self.maximumSitemaps, queuedSitemaps.insert(sitemap.string).inserted else { return false }
        sitemapQueue.append(sitemap)
        return true
    }

    /// 429 and 503: no request to the host until `seconds` have passed, in this run or the
    /// next; returns the record to save.
    mutating func backOff(for seconds: TimeInterval, now: Date) -> HostRecord {
        backoffUntil = max(backoffUntil ?? now, now.addingTimeInterval(seconds))
        var updated = record ?? HostRecord(origin: origin)
        updated.backoffUntil = backoffUntil
        record = updated
        return updated
    }

    // MARK: questions

    /// URLs claimed or possibly claimable.
    var hasPagesLeft: Bool { !buffer.isEmpty || !exhausted }

    var queued: Int { buffer.count }

    /// Whether the host can still do something this run.
    func hasWork(pageCap: Int) -> Bool {
        if inFlight > 0 || !files.isEmpty { return true }
        switch phase {
        case .robots, .association, .waiting: return true
        case .ready: if !sitemapQueue.isEmpty { return true }
        case .refused: break
        case .unavailable: return false
        }
        return hasPagesLeft && pagesThisRun < pageCap
    }

    /// Where the host is, for the progress display (``hasWork(pageCap:)`` says whether it is done).
    var stage: HostStage {
        switch phase {
        case .robots: return .robots
        case .waiting: return robots == nil ? .robots : .association
        case .association: return .association
        case .ready: return sitemapsInFlight > 0 || !sitemapQueue.isEmpty ? .sitemaps : .pages
        case .refused: return .pages
        case .unavailable: return .done
        }
    }

    /// When the host may send next.
    var readyAt: Date { max(nextAllowed, backoffUntil ?? .distantPast) }

    /// True once a request was sent this run (its next allowed time is worth keeping).
    var hasSent: Bool { lastRequest != nil }
}
