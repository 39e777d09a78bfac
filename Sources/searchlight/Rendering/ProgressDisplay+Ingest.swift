import Foundation
import Ingest

/// An ingest's progress: the phase, rows or records done of all, items written, the rate
/// and the time left.
extension ProgressDisplay {
    mutating func show(_ progress: IngestProgress) {
        show(lines: [Self.line(progress)], seconds: progress.seconds)
    }

    /// `0:12 rendering 120,000/300,000 records · 118,000 items changed · 9,800/s · 0:18 left`:
    /// under 80 columns, so that a terminal redraws it in place.
    static func line(_ progress: IngestProgress) -> String {
        let unit = progress.phase == .scanning ? "rows" : "records"
        let done = progress.total.map { "\(grouped(progress.done))/\(grouped($0))" } ?? grouped(progress.done)
        var parts = ["\(elapsed(progress.seconds)) \(progress.phase.rawValue) \(done) \(unit)"]
        if progress.phase == .rendering { parts.append("\(grouped(progress.written)) items changed") }
        parts.append("\(grouped(Int(progress.rate.rounded())))/s")
        if let left = progress.secondsLeft { parts.append("\(elapsed(left)) left") }
        return parts.joined(separator: " · ")
    }

    /// `300,000`: thousands grouped, whatever the locale.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return number < 0 ? "-" + text : text
    }
}
