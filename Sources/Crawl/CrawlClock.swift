import Foundation

/// Where a crawl reads the time. Everything that is scheduled by the calendar reads it —
/// due times, revisit intervals, the failure grace period, item expiry, the age of a
/// cached robots.txt, politeness gaps — so a test can move a crawl days ahead without
/// sleeping. (Waiting for responses uses real time whatever the clock says; with a clock
/// that stands still, only `--delay 0` crawls make progress.)
public struct CrawlClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    public var now: Date { read() }

    /// The system's clock.
    public static let system = CrawlClock { Date() }
}
