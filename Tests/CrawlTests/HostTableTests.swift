import Fetch
import Foundation
@testable import Crawl
import Testing

/// The run's hosts: taken in turn, each once a round, a host given back leaving the turn,
/// and work judged by what each host can still send.
@Suite struct HostTableTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)

    static func machine(_ origin: String) -> HostMachine {
        HostMachine(origin: origin, record: nil, configuration: CrawlConfiguration(dataDirectory: "/nonexistent", fetch: FetchConfiguration(userAgent: "test")),
                    now: now)
    }

    @Test func hostsAreServedInTurnAndLeaveTheTurnWhenGivenBack() {
        var table = HostTable(pageCap: 10, perHostConnections: 1)
        #expect(table.nextInTurn() == nil && !table.hasWork(now: Self.now))
        for origin in ["http://a.example", "http://b.example", "http://c.example"] { table[origin] = Self.machine(origin) }
        table["http://a.example"]?.exhausted = true
        #expect(table.order.count == 3, "changing a host does not add it again")
        #expect((0..<4).compactMap { _ in table.nextInTurn() } == ["http://a.example", "http://b.example", "http://c.example", "http://a.example"])
        table["http://b.example"] = nil
        #expect(table.order == ["http://a.example", "http://c.example"] && table["http://b.example"] == nil)
        #expect(table.hasWork(now: Self.now), "a host that has not read robots.txt has work")
        table.decline("http://d.example")
        #expect(table.isDeclined("http://d.example"))
        table.reconsider("http://d.example")
        #expect(!table.isDeclined("http://d.example"))
    }

    @Test func aHostBackedOffPastTheLongestWaitIsLeftForALaterRun() {
        var table = HostTable(pageCap: 10, perHostConnections: 1)
        var host = Self.machine("http://a.example")
        _ = host.backOff(for: HostTable.longestWait + 1, now: Self.now)
        table["http://a.example"] = host
        #expect(!table.hasWork(now: Self.now))
        #expect(table.hasWork(now: Self.now.addingTimeInterval(2)), "within the longest wait it is waited for")
    }
}
