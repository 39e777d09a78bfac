import Foundation

import SearchIndex

/// The readable form of search results: for each, the title, what a tap does, the URL
/// and a snippet with the matches highlighted (bold on a terminal, `*…*` otherwise).
struct SearchResultsSummary {
    let response: SearchResponse
    let highlight: Bool

    var text: String {
        guard !response.hits.isEmpty else { return "No results for \"\(response.query)\".\n" }
        var lines: [String] = []
        if response.matchedAnyWord { lines.append("No result has every word; showing results with any of them.\n") }
        for (word, spellings) in response.corrections.sorted(by: { $0.key < $1.key }) {
            lines.append("Also searched \(word) as \(spellings.joined(separator: ", ")).")
        }
        if !response.corrections.isEmpty { lines.append("") }
        for (number, hit) in response.hits.enumerated() {
            let item = hit.item
            lines.append("\(number + 1). \(item.title)")
            if let action = hit.action {
                var tap = "   tap: \(action.kind.rawValue)"
                if let url = action.url { tap += " \(url)" }
                if let name = action.app?.name { tap += " (\(name))" }
                lines.append(tap)
            }
            if let url = item.webURL, url != hit.action?.url { lines.append("   \(url)") }
            if let snippet = hit.snippet.map(format), !snippet.isEmpty {
                lines.append("   \(snippet)")
            } else if let description = item.contentDescription {
                lines.append("   \(description.prefix(160))")
            }
            var facts: [String] = []
            if let rating = item.rating { facts.append("rated \(rating)/\(item.ratingScale.formatted())" + (item.ratingCount.map { " (\($0))" } ?? "")) }
            if let price = item.price { facts.append([price, item.currency].compactMap { $0 }.joined(separator: " ")) }
            if !facts.isEmpty { lines.append("   " + facts.joined(separator: " · ")) }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ snippet: String) -> String {
        snippet.replacingOccurrences(of: SearchRequest.snippetStart, with: highlight ? "\u{1B}[1m" : "*")
            .replacingOccurrences(of: SearchRequest.snippetEnd, with: highlight ? "\u{1B}[0m" : "*")
            .replacingOccurrences(of: "\n", with: " ")
    }
}

extension Double {
    /// `5` rather than `5.0`.
    func formatted() -> String {
        self == self.rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
