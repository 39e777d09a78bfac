import Foundation

/// The hosts a run crawls and the requests it has out: each origin's ``HostMachine``, the
/// round-robin turn over them, the hosts another worker holds, and the run's request
/// counts. The coordinator's alone (one thread); what a host does next is its machine's.
struct HostTable {
    /// A host backed off for longer than this is left for a later run rather than waited for.
    static let longestWait: TimeInterval = 30

    private var machines: [String: HostMachine] = [:]
    /// Active hosts in the order they were taken up: the round-robin turn runs over it.
    private(set) var order: [String] = []
    private var cursor = 0
    /// Hosts another worker holds: not asked for again this run.
    private var declined = Set<String>()
    /// Requests sent and not yet answered, over every host.
    var inFlight = 0
    /// Pages sent this run (what `--max-pages` counts).
    var dispatchedPages = 0
    /// `--max-pages-per-host` and `--per-host-connections`.
    let pageCap: Int
    let perHostConnections: Int

    init(pageCap: Int, perHostConnections: Int) {
        self.pageCap = pageCap
        self.perHostConnections = perHostConnections
    }

    subscript(origin: String) -> HostMachine? {
        get { machines[origin] }
        set {
            guard let newValue else { return remove(origin) }
            if machines.updateValue(newValue, forKey: origin) == nil { order.append(origin) }
        }
    }

    private mutating func remove(_ origin: String) {
        guard machines.removeValue(forKey: origin) != nil else { return }
        order.removeAll { $0 == origin }
    }

    func isDeclined(_ origin: String) -> Bool { declined.contains(origin) }
    mutating func decline(_ origin: String) { declined.insert(origin) }
    /// The host may be asked for again (its worker let it go).
    mutating func reconsider(_ origin: String) { declined.remove(origin) }

    /// The next active host in turn (round robin), nil when there is none.
    mutating func nextInTurn() -> String? {
        guard !order.isEmpty else { return nil }
        defer { cursor += 1 }
        return order[cursor % order.count]
    }

    /// Whether any host has something to send before ``longestWait``.
    func hasWork(now: Date) -> Bool { machines.values.contains { hasWork($0, now: now) } }

    func hasWork(_ host: HostMachine, now: Date) -> Bool {
        guard host.hasWork(pageCap: pageCap) else { return false }
        guard host.inFlight == 0, let until = host.backoffUntil else { return true }
        return until.timeIntervalSince(now) <= Self.longestWait
    }

    /// How long the coordinator may sleep: until the next host is ready, at most 0.2 s.
    func nextWakeUp(now: Date) -> TimeInterval {
        var wake = 0.2
        for host in machines.values where hasWork(host, now: now) && host.inFlight < perHostConnections {
            wake = min(wake, max(0.001, host.readyAt.timeIntervalSince(now)))
        }
        return wake
    }

    /// For hosts sent requests this run: when the next may go (kept in the store, so the
    /// next run or worker keeps the spacing).
    var readyTimes: [String: Date] {
        var times: [String: Date] = [:]
        for (origin, host) in machines where host.hasSent { times[origin] = host.readyAt }
        return times
    }

    /// Each host's part of a progress report.
    func progress(now: Date) -> [CrawlProgress.Host] {
        order.compactMap { origin -> CrawlProgress.Host? in
            guard let host = machines[origin] else { return nil }
            let stage = host.hasWork(pageCap: pageCap) ? host.stage : .done
            return CrawlProgress.Host(origin: origin, stage: stage, pages: host.pagesThisRun, queued: host.queued, inFlight: host.inFlight,
                                      backingOffUntil: host.backoffUntil.flatMap { $0 > now ? $0 : nil })
        }
    }
}
