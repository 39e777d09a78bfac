import Foundation

/// Where a host is in a run, for the progress display: robots.txt comes first, then the
/// association files of an https origin, then sitemaps, then pages.
public enum HostStage: String, Sendable, CaseIterable, Comparable {
    case robots
    case association
    case sitemaps
    case pages
    /// Nothing more this run: refused, robots.txt unreadable, or no pages left.
    case done

    public static func < (lhs: HostStage, rhs: HostStage) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A snapshot of a run, handed to the progress callback about once a second.
public struct CrawlProgress: Sendable {
    /// One host's part.
    public struct Host: Sendable, Equatable {
        public var origin: String
        public var stage: HostStage
        /// Pages sent this run.
        public var pages: Int
        /// URLs claimed and waiting to be sent.
        public var queued: Int
        public var inFlight: Int
        /// The host asked to back off (429, 503) until then.
        public var backingOffUntil: Date?
    }

    public var fetched: Int
    public var indexed: Int
    public var errors: Int
    public var queued: Int
    public var inFlight: Int
    /// Since the run started.
    public var seconds: Double
    /// Every host this run has met, busiest first.
    public var hosts: [Host]

    /// How many hosts are in each stage that has any.
    public var stages: [(stage: HostStage, hosts: Int)] {
        let counts = Dictionary(grouping: hosts, by: \.stage).mapValues(\.count)
        return HostStage.allCases.compactMap { stage in counts[stage].map { (stage, $0) } }
    }
}
