import Fetch
import HTTPTypes
import Foundation
@testable import Crawl
import Items
import PageItems
import SearchIndex
import StoreSeams
import Testing
import WebRules
import WebURL

/// The crawl's verdict on one analysed page, decided without any I/O (``PageDecision``).
@Suite struct PageDecisionTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)
    static let url = WebURL("https://site.example/a")!

    static func decide(_ kind: PageAnalyzer.Result.Kind, entry: FrontierEntry? = nil, duplicate: PageDecision.Duplicate? = nil,
                       digest: String? = nil) throws -> PageDecision {
        let entry = entry ?? FrontierEntry(id: 1, url: url, origin: url.origin, depth: 1)
        var page = PageAnalyzer.Result(entry: entry, kind: kind, status: 200, bytes: 10)
        page.digest = digest.map { ContentDigest(of: Array($0.utf8)) }
        let admission = LinkAdmission(keys: FrontierKey(), scope: try CrawlScope(seeds: [WebURL("https://site.example/")!]), maximumDepth: 5)
        let configuration = CrawlConfiguration(dataDirectory: "/nonexistent", fetch: FetchConfiguration(userAgent: "test"))
        return PageDecision(page, duplicate: duplicate, admission: admission, configuration: configuration, now: now)
    }

    static let item = try! SearchableItem(uniqueIdentifier: url.string, title: "A page", webURL: url.string, source: .crawled)
        .validated(.crawled, now: Date())

    /// No path indexes an item the contract refuses: a page whose item breaks a rule even
    /// cleaned (here its identifier, a same-site canonical longer than any item URL may be,
    /// which the crawl will not follow) is not indexed, and is counted with its reason.
    @Test func aPageTheContractRefusesIsSkippedWithItsReason() throws {
        let canonical = "https://site.example/" + String(repeating: "long-", count: 500)
        let html = "<html><head><title>Refused</title><link rel=canonical href=\"\(canonical)\"></head><body><p>Some text.</p></body></html>"
        let response = FetchResponse(request: FetchRequest(url: Self.url.string), status: 200,
                                     headers: [HTTPField("Content-Type", "text/html")], body: Array(html.utf8))
        let admission = LinkAdmission(keys: FrontierKey(), scope: try CrawlScope(seeds: [WebURL("https://site.example/")!]), maximumDepth: 5)
        let entry = FrontierEntry(id: 1, url: Self.url, origin: Self.url.origin, depth: 1)
        let page = PageAnalyzer(builder: ItemBuilder(), admission: admission)
            .analyze(response, entry: entry, associations: ItemBuilder.Associations(), robots: nil, now: Self.now)
        guard case .notIndexed(let reason) = page.kind else {
            Issue.record("indexed an item the contract refuses: \(page.kind)")
            return
        }
        #expect(reason == .invalidItem)
        #expect(page.detail == "uniqueIdentifier: at most 2048 bytes", "the rule the item broke")
        let decision = PageDecision(page, duplicate: nil, admission: admission,
                                    configuration: CrawlConfiguration(dataDirectory: "/nonexistent", fetch: FetchConfiguration(userAgent: "test")), now: Self.now)
        #expect(!decision.indexed && decision.upsert == nil)
        #expect(decision.skipped[.invalidItem] == 1 && decision.outcome?.reason == SkipReason.invalidItem.label)
        #expect(decision.outcome?.detail == page.detail, "kept with the URL for status --urls")
        var report = RunReport(id: "run", started: Self.now)
        report.record(decision, page: page)
        #expect(report.details[SkipReason.invalidItem.label]?.first?.detail == page.detail)
        #expect(report.summary.contains("invalid-item: \(Self.url.string) — uniqueIdentifier: at most 2048 bytes"), "\(report.summary)")
    }

    @Test func anIndexablePageIsWrittenAndReplacesItsOldItem() throws {
        var entry = FrontierEntry(id: 1, url: Self.url, origin: Self.url.origin, depth: 1)
        entry.itemID = "https://site.example/old-canonical"
        let decision = try Self.decide(.indexed(Self.item), entry: entry, digest: "body")
        #expect(decision.indexed && decision.upsert?.uniqueIdentifier == Self.url.string)
        #expect(decision.deletes == ["https://site.example/old-canonical"])
        #expect(decision.content?.url == Self.url.string)
        #expect(decision.outcome?.itemID == Self.url.string)
    }

    @Test func aDuplicateIsNotWrittenAndDropsTheItemItHad() throws {
        var entry = FrontierEntry(id: 1, url: Self.url, origin: Self.url.origin, depth: 1)
        entry.itemID = Self.url.string
        for (duplicate, reason) in [(PageDecision.Duplicate.exact(of: "https://site.example/b"), SkipReason.duplicate), (.near, .nearDuplicate)] {
            let decision = try Self.decide(.indexed(Self.item), entry: entry, duplicate: duplicate, digest: "body")
            #expect(!decision.indexed && decision.upsert == nil)
            #expect(decision.deletes == [Self.url.string])
            #expect(decision.skipped == [reason: 1] && decision.outcome?.reason == reason.label)
        }
    }

    @Test func aTransientFailureKeepsTheItemUntilTheGracePeriodEnds() throws {
        var entry = FrontierEntry(id: 1, url: Self.url, origin: Self.url.origin, depth: 1)
        entry.itemID = Self.url.string
        entry.failures = 2
        entry.firstFailure = Self.now.addingTimeInterval(-3600)
        let early = try Self.decide(.failed(.http(503), backOff: 60), entry: entry)
        #expect(early.deletes.isEmpty && early.hostError && early.backOff == 60)
        #expect(early.outcome?.failures == 3 && early.outcome?.firstFailure == entry.firstFailure)
        entry.firstFailure = Self.now.addingTimeInterval(-8 * 86_400)
        let late = try Self.decide(.failed(.http(503), backOff: nil), entry: entry)
        #expect(late.deletes == [Self.url.string])
        #expect(late.skipped[.failingBeyondGracePeriod] == 1)
    }

    @Test func aNotModifiedPageConfirmsItsItem() throws {
        var entry = FrontierEntry(id: 1, url: Self.url, origin: Self.url.origin, depth: 1)
        entry.itemID = Self.url.string
        let decision = try Self.decide(.notModified, entry: entry)
        #expect(decision.notModified && decision.outcome?.status == 304)
        #expect(decision.confirmation?.id == Self.url.string)
        #expect(decision.upsert == nil && decision.deletes.isEmpty)
    }

    @Test func aRedirectOutOfScopeDropsTheItem() throws {
        var entry = FrontierEntry(id: 1, url: Self.url, origin: Self.url.origin, depth: 1)
        entry.itemID = Self.url.string
        let inside = try Self.decide(.redirect(WebURL("https://site.example/b")!), entry: entry)
        #expect(inside.redirect && inside.links.map(\.url.string) == ["https://site.example/b"])
        #expect(inside.deletes == [Self.url.string], "the item moves to the target")
        let outside = try Self.decide(.redirect(WebURL("https://elsewhere.example/")!), entry: entry)
        #expect(outside.links.isEmpty && outside.deletes == [Self.url.string])
        #expect(outside.outcome?.reason != nil)
    }
}
