import Foundation
import SearchIndex
import TextUtilities

/// The readable form of a ``Findability``: the rank, the score's parts, each query word
/// with the fields and forms it matched, the results above, and what keeps the page out or
/// down (the index's findings, then what the live page says).
struct FindabilitySummary {
    let findability: Findability
    /// What the page as served now says beside the index (``FindabilityCheck``).
    let notes: [String]
    let data: String

    var text: String {
        let report = findability
        var lines = ["", "Findability for “\(report.query)” in \(data)"]
        func field(_ name: String, _ value: String) { lines.append("  \(name.padding(18))\(value)") }
        let count = report.totalIsExact ? "\(report.total)" : "more than \(report.total)"
        if let rank = report.rank {
            field("Rank", "\(rank) of \(count) \(report.total == 1 && report.totalIsExact ? "result" : "results")")
        } else if report.indexed, report.matches {
            field("Rank", "below the first \(report.searched) of \(count) results")
        } else {
            field("Rank", report.indexed ? "not among the results: it matches none of the words" : "not in the results: not in the index")
        }
        if let score = report.score {
            field("Score", String(format: "%.3f = relevance %.3f × quality %.2g × rating %.3f × engagement %.3f × freshness %.3f",
                                  score.total, score.relevance, score.quality, score.rating, score.engagement, score.freshness))
        }
        if !report.corrections.isEmpty {
            field("Corrected", report.corrections.keys.sorted().map { "\($0) → \(report.corrections[$0]!.joined(separator: ", "))" }
                .joined(separator: "; "))
        }
        if report.indexed, !report.words.isEmpty {
            lines.append("  Words")
            for word in report.words {
                let matched = word.forms.filter { !$0.occurrences.isEmpty }
                let points = String(format: "%+.3f", word.points)
                guard !matched.isEmpty else {
                    lines.append("    \(word.word.padding(16))  \(points)  not in the item in any form searched")
                    continue
                }
                let described = matched.map { form in
                    let fields = Findability.Field.allCases.compactMap { field in form.occurrences[field].map { "\(field.rawValue) \($0)" } }
                    return "\(form.text) (\(form.kind.rawValue)): " + fields.joined(separator: ", ")
                }
                lines.append("    \(word.word.padding(16))  \(points)  " + described.joined(separator: "; "))
            }
        }
        if !report.above.isEmpty {
            lines.append(report.rank == nil ? "  First results" : "  Above it")
            for neighbour in report.above {
                lines.append(String(format: "    %4d  %8.3f  ", neighbour.rank, neighbour.score)
                    + TerminalText.escaped(String(neighbour.title.prefix(60))) + "  " + TerminalText.escaped(neighbour.identifier))
            }
        }
        let findings = report.findings.map(\.message) + notes
        if !findings.isEmpty {
            lines.append("  What keeps it out or down")
            for finding in findings { lines.append("    ! " + TerminalText.escaped(finding)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
