import Crawl
import Foundation
import Glibc
import TextUtilities

/// How `crawl` shows a run while it goes, on standard error (standard output keeps the
/// report, so `--json` and progress mix): a line redrawn in place on a terminal, a line
/// every ten seconds elsewhere, and with `hosts` the busiest hosts under it.
struct ProgressDisplay {
    enum Mode: String, CaseIterable {
        /// A line on a terminal, nothing otherwise.
        case auto
        case line
        case hosts
        case none
    }

    /// Hosts listed under the line with `hosts`.
    static let listedHosts = 10

    let mode: Mode
    let terminal: Bool
    private var lastPlain = -Double.infinity
    private var drawnLines = 0

    init(mode: Mode, terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.mode = mode == .auto ? (terminal ? .line : .none) : mode
        self.terminal = terminal
    }

    var isOn: Bool { mode != .none }

    mutating func show(_ progress: CrawlProgress) {
        guard isOn else { return }
        var lines = [Self.line(progress)]
        if mode == .hosts {
            lines += progress.hosts.filter { $0.stage != .done }.prefix(Self.listedHosts).map { Self.hostLine($0, now: Date()) }
        }
        lines = lines.map { TerminalText.escaped($0) }
        if terminal {
            // Back to the first line drawn last time, then each line cleared and redrawn.
            var text = drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)F" : "\r"
            text += lines.map { "\u{1B}[K" + $0 }.joined(separator: "\n")
            text += "\u{1B}[J"
            Console.errorWrite(text)
            drawnLines = lines.count
        } else if progress.seconds - lastPlain >= 10 {
            lastPlain = progress.seconds
            Console.errorWrite(lines.joined(separator: "\n") + "\n")
        }
    }

    /// Clears what the terminal shows before the report is printed.
    func clear() {
        guard isOn, terminal, drawnLines > 0 else { return }
        Console.errorWrite((drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)F" : "\r") + "\u{1B}[J")
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

    /// `m:ss`, or `h:mm:ss` past an hour.
    static func elapsed(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
