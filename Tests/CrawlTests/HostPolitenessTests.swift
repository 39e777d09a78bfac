import Fetch
import Foundation
import Items
@testable import Crawl
import Testing

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
}
