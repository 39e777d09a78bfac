import Foundation
import Glibc
import TextUtilities

/// How `crawl` and `ingest` show a run while it goes, on standard error (standard output
/// keeps the report, so `--json` and progress mix): a line redrawn in place on a terminal
/// (at most five times a second), a line every ten seconds elsewhere, and for a crawl
/// with `hosts` the busiest hosts under it.
struct ProgressDisplay {
    enum Mode: String, CaseIterable {
        /// A line on a terminal, nothing otherwise.
        case auto
        case line
        case hosts
        case none
    }

    /// The modes `ingest` takes (it has no hosts).
    static let lineModes: [Mode] = [.auto, .line, .none]

    let mode: Mode
    let terminal: Bool
    private var lastPlain = -Double.infinity
    private var lastDrawn = -Double.infinity
    private var drawnLines = 0

    init(mode: Mode, terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.mode = mode == .auto ? (terminal ? .line : .none) : mode
        self.terminal = terminal
    }

    var isOn: Bool { mode != .none }

    /// Shows `lines`, `seconds` into the run: the first call always draws.
    mutating func show(lines: [String], seconds: Double) {
        guard isOn else { return }
        let lines = lines.map { TerminalText.escaped($0) }
        if terminal {
            guard seconds - lastDrawn >= 0.2 else { return }
            lastDrawn = seconds
            // Back to the first line drawn last time, then each line cleared and redrawn.
            var text = drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)F" : "\r"
            text += lines.map { "\u{1B}[K" + $0 }.joined(separator: "\n")
            text += "\u{1B}[J"
            Console.errorWrite(text)
            drawnLines = lines.count
        } else if seconds - lastPlain >= 10 {
            lastPlain = seconds
            Console.errorWrite(lines.joined(separator: "\n") + "\n")
        }
    }

    /// Clears what the terminal shows before the report is printed.
    func clear() {
        guard isOn, terminal, drawnLines > 0 else { return }
        Console.errorWrite((drawnLines > 1 ? "\u{1B}[\(drawnLines - 1)F" : "\r") + "\u{1B}[J")
    }

    /// `m:ss`, or `h:mm:ss` past an hour.
    static func elapsed(_ seconds: Double) -> String {
        let total = max(0, Int(seconds.rounded(.down)))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
