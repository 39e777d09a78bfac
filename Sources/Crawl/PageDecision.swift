import Foundation
import Items
import StoreSeams
import WebRules
import WebURL

/// What the crawl does about one analysed page — the frontier outcome, the item to write
/// or remove, the links to queue, the counts — as a pure function of the page, its
/// frontier entry, the configuration and the time, so that every rule can be tested
/// without a server.
struct PageDecision {
    var outcome: FrontierOutcome?
    var upsert: ValidItem?
    var deletes: [String] = []
    /// An item confirmed unchanged, and its new expiration.
    var confirmation: (id: String, until: Date)?
    var links: [FrontierURL] = []
    var skipped: [SkipReason: Int] = [:]
    var indexed = false
    var notModified = false
    var redirect = false
    /// A failure to count against the host.
    var hostError = false
    /// Leave the host alone this long (429, 503).
    var backOff: TimeInterval?
    /// Not fetched after all: try again at this time (429).
    var postpone: Date?
    /// A body seen for the first time: its digest and URL.
    var content: (hash: String, url: String)?

    /// An indexable page whose content the host already has indexed under another URL.
    enum Duplicate: Equatable {
        /// The same body, first seen at this URL.
        case exact(of: String)
        /// Text within a few SimHash bits of another page of the host.
        case near
    }

    /// - Parameter duplicate: for an indexable page, whether another URL has its content.
    init(_ page: PageAnalyzer.Result, duplicate: Duplicate?, admission: LinkAdmission, configuration: CrawlConfiguration, now: Date) {
        let entry = page.entry
        var outcome = FrontierOutcome(keeping: entry, state: .done, due: now.addingTimeInterval(configuration.revisit.initial), handled: now)
        outcome.status = page.status
        outcome.etag = page.etag ?? entry.etag
        outcome.lastModified = page.lastModified ?? entry.lastModified
        outcome.failures = 0
        outcome.firstFailure = nil
        /// The next visit: sooner when the page changed, later when it did not, and before
        /// its item would expire unconfirmed.
        func revisit(changed: Bool) {
            let frequency = entry.changeFrequency.flatMap(Sitemap.ChangeFrequency.init(rawValue:))
            let interval = configuration.revisit.interval(after: entry.interval, changed: changed, changeFrequency: frequency)
            outcome.interval = interval
            outcome.changed = changed && entry.fetched
            let beforeExpiry = max(configuration.revisit.minimum, configuration.itemLifetime - 86_400)
            outcome.due = now.addingTimeInterval(min(interval, beforeExpiry))
        }
        func dropItem() {
            if let old = entry.itemID { deletes.append(old) }
            outcome.itemID = nil
        }
        func skip(_ reason: SkipReason, _ count: Int = 1) { skipped[reason, default: 0] += count }
        /// A skip that is this URL's own verdict, kept with it in the frontier.
        func verdict(_ reason: SkipReason) {
            skip(reason)
            outcome.reason = reason.label
        }

        switch page.kind {
        case .indexed(let item):
            let hash = page.digest?.description
            outcome.contentHash = hash
            revisit(changed: hash != entry.contentHash)
            switch duplicate {
            case .exact:
                verdict(.duplicate)
                dropItem()
            case .near:
                verdict(.nearDuplicate)
                dropItem()
            case nil:
                if let hash { content = (hash, entry.url.string) }
                upsert = item
                if let old = entry.itemID, old != item.uniqueIdentifier { deletes.append(old) }
                outcome.itemID = item.uniqueIdentifier
                outcome.itemWritten = true
                indexed = true
            }
        case .notIndexed(let reason):
            verdict(reason)
            outcome.detail = page.detail
            if let hash = page.digest?.description {
                outcome.contentHash = hash
                revisit(changed: hash != entry.contentHash)
            } else {
                revisit(changed: true)
            }
            dropItem()
        case .notModified:
            notModified = true
            outcome.status = 304
            revisit(changed: false)
            if let item = entry.itemID { confirmation = (item, now.addingTimeInterval(configuration.itemLifetime)) }
        case .redirect(let location):
            redirect = true
            revisit(changed: false)
            switch admission.admit(location, from: .redirect) {
            case .follow(let target):
                outcome.redirectedTo = target.string
                if entry.itemID != target.string { dropItem() }
                if !admission.followsRedirect(afterHops: entry.redirects) {
                    verdict(.tooManyRedirects)
                } else {
                    links.append(FrontierURL(url: target, depth: entry.depth, foundOn: entry.url.string, redirects: entry.redirects + 1))
                }
            case .drop(let reason):
                outcome.redirectedTo = admission.keys.key(for: location).string
                dropItem()
                verdict(reason)
            }
        case .gone:
            verdict(.http(page.status))
            outcome.state = .gone
            outcome.due = now.addingTimeInterval(configuration.revisit.goneInterval)
            dropItem()
        case .failed(let reason, let backOff):
            verdict(reason)
            self.backOff = backOff
            hostError = true
            outcome.state = .failing
            outcome.failures = entry.failures + 1
            let firstFailure = entry.firstFailure ?? now
            outcome.firstFailure = firstFailure
            outcome.due = now.addingTimeInterval(configuration.revisit.retryDelay(afterFailures: outcome.failures))
            // The item stays through a transient failure, until the grace period is over.
            if entry.itemID != nil, now.timeIntervalSince(firstFailure) >= configuration.failureGracePeriod {
                verdict(.failingBeyondGracePeriod)
                dropItem()
            }
        case .throttled(let retryAfter):
            verdict(.throttled)
            backOff = retryAfter
            postpone = now.addingTimeInterval(retryAfter)
            self.outcome = nil
            return
        case .refused(let reason):
            verdict(reason)
            hostError = true
            outcome.state = .excluded
            outcome.due = now.addingTimeInterval(86_400)
        }
        for (reason, count) in page.droppedLinks { skip(reason, count) }
        if admission.followsLinks(fromDepth: entry.depth) {
            links += page.links.map { FrontierURL(url: $0, depth: entry.depth + 1, foundOn: entry.url.string) }
        } else if !page.links.isEmpty {
            skip(.tooDeep, page.links.count)
        }
        self.outcome = outcome
    }
}
