import EmbeddedStore
import Foundation
import PostgresStore
import SearchlightTestSupport
import StoreSeams
import Synchronization
import Testing
import WebURL

/// Notified URLs in both crawl stores (issue 59): claimed ahead of routine revisits and new
/// URLs, a notice that comes while its page is being fetched kept, the freshness counts
/// added up; and the shared store's `LISTEN` wake-up.
@Suite struct NoticeOrderTests {
    static let origin = "http://notices.test"

    static func url(_ path: String) -> WebURL { WebURL(Self.origin + path)! }

    /// Ten pages fetched an hour ago and due again (overdue), and two never fetched; then a
    /// notice for one of the fetched pages and one for a new page.
    static func exercise(_ store: any CrawlStore) throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var batch = CrawlBatch()
        batch.newURLs = (0..<12).map { FrontierURL(url: url("/p\($0)"), depth: 1, foundOn: nil) }
        _ = try store.commit(batch, now: start)
        guard case .granted = try store.acquireHost(origin, now: start) else { Issue.record("host not granted"); return }
        let first = try store.claim(origin: origin, now: start, limit: 64)
        #expect(first.count == 12)
        var fetched = CrawlBatch()
        fetched.outcomes = first.prefix(10).map { FrontierOutcome(keeping: $0, state: .done, due: start.addingTimeInterval(60), handled: start) }
        _ = try store.commit(fetched, now: start)
        try store.release(first.suffix(2).map(\.id))

        let noticed = start.addingTimeInterval(3600)
        _ = try store.commit({ var b = CrawlBatch(); b.newURLs = [FrontierURL(url: url("/new"), depth: 0, foundOn: nil, fromSitemap: true)]; return b }(),
                             now: noticed)
        #expect(try store.makeDue(.notified([url("/p7"), url("/new")]), now: noticed) == 2)
        // (The shared store claims a block of URLs at a time: the first three are what counts.)
        let claimed = Array(try store.claim(origin: origin, now: noticed.addingTimeInterval(1), limit: 3).prefix(3))
        #expect(claimed.map(\.url.path) == ["/p7", "/new", "/p0"], "notified first, in notice order; then the most overdue revisit")
        #expect(claimed.first?.noticed == noticed)

        // A notice taken while /p7 was fetched stays: the page is due again at once.
        let again = noticed.addingTimeInterval(2)
        #expect(try store.makeDue(.notified([url("/p7")]), now: again) == 1)
        var done = CrawlBatch()
        done.outcomes = claimed.map { FrontierOutcome(keeping: $0, state: .done, due: again.addingTimeInterval(86_400), handled: noticed.addingTimeInterval(1)) }
        done.outcomes[0].itemWritten = true
        done.freshness.record(done.outcomes, searchable: noticed.addingTimeInterval(1.5))
        _ = try store.commit(done, now: noticed.addingTimeInterval(1.5))
        // Every claimed URL went back to the queue with its outcome; /p7's late notice is kept.
        let next = try store.claim(origin: origin, now: again.addingTimeInterval(1), limit: 1)
        #expect(next.first?.url.path == "/p7")
        #expect(done.freshness.noticeToSearchable.count == 2)
        #expect(done.freshness.fetchToSearchable.count == 1)
        #expect(done.freshness.noticeToSearchable.quantile(0.99) == 2, "1.5 s from notice to searchable falls in the ≤ 2 s bucket")
    }

    /// A page whose content changed no longer holds its old digest: another URL with the old
    /// content is not a duplicate of it, and the table keeps a row a page, not a version.
    static func forgetsOldDigests(_ store: any CrawlStore) throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var batch = CrawlBatch()
        batch.newURLs = [FrontierURL(url: url("/changing"), depth: 0, foundOn: nil)]
        _ = try store.commit(batch, now: now)
        guard case .granted = try store.acquireHost(origin, now: now) else { Issue.record("host not granted"); return }
        for version in ["first", "second"] {
            let entry = try #require(try store.claim(origin: origin, now: now.addingTimeInterval(86_400 * 30), limit: 8).first { $0.url.path == "/changing" })
            var fetched = CrawlBatch()
            var outcome = FrontierOutcome(keeping: entry, state: .done, due: now, handled: now)
            outcome.contentHash = "digest-\(version)"
            fetched.outcomes = [outcome]
            fetched.contents = [("digest-\(version)", entry.url.string)]
            _ = try store.commit(fetched, now: now)
        }
        #expect(try store.firstURL(withContent: "digest-first") == nil)
        #expect(try store.firstURL(withContent: "digest-second") == url("/changing").string)
    }

    @Test func theDataFolderClaimsNotifiedURLsFirst() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notice-order-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.exercise(LocalCrawlStore(dataDirectory: folder))
        try Self.forgetsOldDigests(LocalCrawlStore(dataDirectory: folder + "-digests"))
        try? FileManager.default.removeItem(atPath: folder + "-digests")
        let freshness = try #require(try CrawlStatus.crawlFigures(dataDirectory: folder)?.freshness)
        #expect(freshness.noticeToSearchable.count == 2 && freshness.fetchToSearchable.count == 1)
        #expect(try CrawlStatus.read(dataDirectory: folder).summary.contains("searchable: notice → searchable p50 ≤ 2 s, p99 ≤ 2 s (2 pages)"))
    }

    @Test func theSharedStoreClaimsNotifiedURLsFirstAndWakesItsListeners() throws {
        let url = try PostgresCluster.shared.get().newDatabase()
        let shared = try SharedStore(url: url)
        let wakeUp = PostgresWakeUp(url: url)
        let woken = DispatchSemaphore(value: 0)
        try wakeUp.start { woken.signal() }
        defer { wakeUp.stop() }
        // The listener is connected once a notification sent now reaches it.
        let store = PostgresCrawlStore(shared)
        var listening = false
        for _ in 0..<120 where !listening {
            _ = try store.makeDue(.notified([]), now: Date())
            listening = woken.wait(timeout: .now() + 0.5) == .success
        }
        #expect(listening, "LISTEN hears the store's notification")
        while woken.wait(timeout: .now()) == .success {}

        try Self.exercise(store)
        #expect(woken.wait(timeout: .now() + 30) == .success, "the notices of exercise() woke the listener")
        try Self.forgetsOldDigests(PostgresCrawlStore(try SharedStore(url: try PostgresCluster.shared.get().newDatabase())))
        let figures = try shared.crawlFigures()
        #expect(figures.freshness.noticeToSearchable.count == 2 && figures.freshness.fetchToSearchable.count == 1)
    }
}
