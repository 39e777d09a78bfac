import Fetch
import Foundation
import Items
import StoreSeams
@testable import Crawl
import Testing
import WebURL

/// A rendered page's requests to a host count in its politeness as its pages do.
@Suite struct HostPolitenessTests {
    @Test func renderedRequestsPushTheNextPageBack() {
        var configuration = CrawlConfiguration(dataDirectory: "/nonexistent", fetch: FetchConfiguration(userAgent: "test"))
        configuration.delay = 2
        let now = Date(timeIntervalSince1970: 1_000_000)
        var host = HostMachine(origin: "https://app.example", record: nil, configuration: configuration, now: now)
        host.counted(requests: 3, now: now)
        #expect(host.nextAllowed == now.addingTimeInterval(6), "three requests, three delays")
        host.counted(requests: 1, now: now.addingTimeInterval(1))
        #expect(host.nextAllowed == now.addingTimeInterval(8), "after the ones already counted")
        host.counted(requests: 1_000, now: now)
        #expect(host.nextAllowed == now.addingTimeInterval(8 + 200), "at most 100 requests counted at once")
        host.counted(requests: 0, now: now.addingTimeInterval(500))
        #expect(host.nextAllowed == now.addingTimeInterval(208))
    }

    static let now = Date(timeIntervalSince1970: 1_000_000)
    static let limits = HostMachine.Limits(perHost: 1, globalSlot: true, pageSlot: true, pageCap: 100)

    static func configuration(delay: TimeInterval = 1) -> CrawlConfiguration {
        var configuration = CrawlConfiguration(dataDirectory: "/nonexistent", fetch: FetchConfiguration(userAgent: "test"))
        configuration.delay = delay
        configuration.readsSitemaps = false
        return configuration
    }

    static func entry(_ path: String, id: Int64) -> FrontierEntry {
        let url = WebURL("http://site.example" + path)!
        return FrontierEntry(id: id, url: url, origin: url.origin, depth: 1)
    }

    /// The machine's order of work on a host: robots.txt first, then pages it allows, one at
    /// a time and a delay apart (the larger of --delay and Crawl-delay); a page robots.txt
    /// forbids is excluded and its item dropped, never fetched.
    @Test func robotsFirstThenAllowedPagesSpacedByTheLargerDelay() throws {
        let configuration = Self.configuration()
        var host = HostMachine(origin: "http://site.example", record: nil, configuration: configuration, now: Self.now)
        guard case .fetchFile(let url, .robots(hops: 0)) = host.next(now: Self.now, limits: Self.limits) else {
            Issue.record("robots.txt is not asked for first")
            return
        }
        #expect(url == "http://site.example/robots.txt")
        #expect(host.next(now: Self.now, limits: Self.limits) == nil, "nothing else while robots.txt is out")
        host.finished()
        let rules = HostFiles.rules(status: 200, body: Array("User-agent: *\nDisallow: /private\nCrawl-delay: 3\n".utf8),
                                    origin: "http://site.example", token: configuration.productToken)
        _ = host.robotsArrived(.rules(rules, record: nil, cached: false), hops: 0, configuration: configuration, now: Self.now)
        // http has no association files: on to pages once the delay since robots.txt has passed.
        #expect(host.next(now: Self.now.addingTimeInterval(2.9), limits: Self.limits) == nil, "Crawl-delay 3 beats --delay 1")
        guard case .claim = host.next(now: Self.now.addingTimeInterval(3), limits: Self.limits) else {
            Issue.record("no claim once robots.txt allows pages")
            return
        }
        host.supply([Self.entry("/private/a", id: 1), Self.entry("/public/b", id: 2)])
        guard case .exclude(let excluded, .robots, _, deleteItem: true) = host.next(now: Self.now.addingTimeInterval(3), limits: Self.limits) else {
            Issue.record("a disallowed page is not excluded")
            return
        }
        #expect(excluded.id == 1)
        guard case .fetchPage(let page, _) = host.next(now: Self.now.addingTimeInterval(3), limits: Self.limits) else {
            Issue.record("an allowed page is not fetched")
            return
        }
        #expect(page.id == 2 && host.pagesThisRun == 1)
        host.supply([Self.entry("/public/c", id: 3)])
        host.finished()
        #expect(host.next(now: Self.now.addingTimeInterval(5.9), limits: Self.limits) == nil, "the next page waits its delay")
        guard case .fetchPage(let next, _) = host.next(now: Self.now.addingTimeInterval(6), limits: Self.limits) else {
            Issue.record("the next page is not sent once its delay has passed")
            return
        }
        #expect(next.id == 3)
    }

    /// A robots.txt that cannot be read (no cached copy) leaves the host alone this run; a
    /// host whose address the crawl may not reach has its pages excluded, their items kept.
    @Test func unreachableRobotsStopsTheHostAndARefusedAddressExcludesItsPages() {
        let configuration = Self.configuration()
        var away = HostMachine(origin: "http://site.example", record: nil, configuration: configuration, now: Self.now)
        _ = away.next(now: Self.now, limits: Self.limits)
        away.finished()
        let effects = away.robotsArrived(.unavailable, hops: 0, configuration: configuration, now: Self.now)
        #expect(effects.skip == .robotsUnreachable && !away.hasWork(pageCap: 100))

        var refused = HostMachine(origin: "http://site.example", record: nil, configuration: configuration, now: Self.now)
        _ = refused.next(now: Self.now, limits: Self.limits)
        refused.finished()
        _ = refused.robotsArrived(.refused, hops: 0, configuration: configuration, now: Self.now)
        guard case .claim = refused.next(now: Self.now.addingTimeInterval(1), limits: Self.limits) else {
            Issue.record("a refused host's claimed URLs are not taken")
            return
        }
        refused.supply([Self.entry("/a", id: 1)])
        guard case .exclude(_, .refusedAddress, _, deleteItem: false) = refused.next(now: Self.now.addingTimeInterval(1), limits: Self.limits) else {
            Issue.record("a refused host's page is not excluded with its reason")
            return
        }
    }

    /// A host backing off (a 503's Retry-After) sends nothing until then, and says so in the record it saves.
    @Test func aBackOffHoldsEveryRequestUntilItEnds() {
        var configuration = Self.configuration()
        configuration.obeysRobots = false
        var host = HostMachine(origin: "http://site.example", record: nil, configuration: configuration, now: Self.now)
        let record = host.backOff(for: 120, now: Self.now)
        #expect(record.backoffUntil == Self.now.addingTimeInterval(120))
        #expect(host.next(now: Self.now.addingTimeInterval(119), limits: Self.limits) == nil)
        guard case .claim = host.next(now: Self.now.addingTimeInterval(120), limits: Self.limits) else {
            Issue.record("no request once the back-off ends")
            return
        }
    }
}
