import Crawl
import Foundation

/// A crawl's progress: a line of counts, and with `hosts` the busiest hosts under it.
extension ProgressDisplay {
    /// Hosts listed under the line with `hosts`.
    static let listedHosts = 10

    mutating func show(_ progress: CrawlProgress) {
        guard isOn else { return }
        var lines = [Self.line(progress)]
        if mode == .hosts {
            lines += progress.hosts.filter { $0.stage != .done }.prefix(Self.listedHosts).map { Self.hostLine($0, now: Date()) }
        }
        show(lines: lines, seconds: progress.seconds)
    }

    /// `0:12 · 3 robots, 12 pages · 120 fetched · 118 indexed · 9.8 pages/s · 40 queued · 3 in flight · 0 skipped`
    static func line(_ progress: CrawlProgress) -> String {
        let rate = progress.seconds > 0 ? Double(progress.fetched) / progress.seconds : 0
        let stages = progress.stages.filter { $0.stage != .done }.map { "\($0.hosts) \($0.stage.rawValue)" }
        let hosts = stages.isEmpty ? "all hosts done" : "hosts: " + stages.joined(separator: ", ")
        return String(format: "%@ · %@ · %d fetched · %d indexed · %.1f pages/s · %d queued · %d in flight · %d skipped",
                      elapsed(progress.seconds), hosts, progress.fetched, progress.indexed, rate, progress.queued,
                      progress.inFlight, progress.errors)
    }

    static func hostLine(_ host: CrawlProgress.Host, now: Date) -> String {
        var text = "  \(host.origin)  \(host.stage.rawValue) · \(host.pages) pages · \(host.queued) queued · \(host.inFlight) in flight"
        if let until = host.backingOffUntil { text += " · backing off \(elapsed(until.timeIntervalSince(now)))" }
        return text
    }
}
