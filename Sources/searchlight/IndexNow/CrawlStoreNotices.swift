import EmbeddedStore
import Foundation
import Service
import StoreSeams
import Synchronization
import WebURL

/// IndexNow notices written into the crawl's frontier (`serve --indexnow`): the data
/// folder's `frontier.sqlite`, or the shared store's, through the same ``CrawlStore`` a
/// crawl writes with. A notice's URLs go in as a sitemap's would — declared by the site's
/// owner, so never judged a trap's (`fromSitemap`), at depth 0 — and are made due at once
/// and claimed ahead of routine work (``RefetchSelection/notified(_:)``); a continuous crawl
/// is woken, and fetches them under robots.txt and its politeness, as any URL.
final class CrawlStoreNotices: IndexNowFrontier {
    /// One owner of the store's connection: notices arrive on the server's threads.
    private let store: Mutex<any CrawlStore>
    /// The data folder whose continuous crawl is woken once URLs are due (nil for the shared
    /// store, which wakes its continuous workers itself: ``PostgresWakeUp``).
    private let wakes: String?

    init(_ store: sending any CrawlStore, waking dataDirectory: String? = nil) {
        self.store = Mutex(store)
        wakes = dataDirectory
    }

    func knows(origin: String) throws -> Bool {
        try store.withLock { try $0.host(origin) != nil }
    }

    func makeDue(_ urls: [WebURL], now: Date) throws -> Int {
        try store.withLock { store in
            var batch = CrawlBatch()
            batch.newURLs = urls.map { FrontierURL(url: $0, depth: 0, foundOn: nil, fromSitemap: true, priority: 1) }
            let added = try store.commitLinks(batch, now: now)
            _ = try store.makeDue(.notified(urls), now: now)
            if let wakes { FolderWakeUp.notify(dataDirectory: wakes) }
            return added
        }
    }
}
