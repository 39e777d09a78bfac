import Foundation

import Items
import SearchIndex
import TextUtilities

/// The readable form of search results: for each, the title, what a tap does, the URL
/// and a snippet with the matches highlighted (bold on a terminal, `*…*` otherwise).
struct SearchResultsSummary {
    let response: SearchResponse
    let highlight: Bool

    /// Every value escaped (``TerminalText``: titles, URLs and snippets are fetched pages'),
    /// the highlight's own sequences put in after: print it with `Console.writeStyled`.
    var text: String {
        guard !response.hits.isEmpty else { return TerminalText.escaped("No results for \"\(response.query)\".") + "\n" }
        var lines: [String] = []
        func add(_ line: String) { lines.append(TerminalText.escaped(line)) }
        if response.matchedAnyWord { add("No result has every word; showing results with any of them.\n") }
        for (word, spellings) in response.corrections.sorted(by: { $0.key < $1.key }) {
            add("Also searched \(word) as \(spellings.joined(separator: ", ")).")
        }
        if !response.corrections.isEmpty { add("") }
        for (number, hit) in response.hits.enumerated() {
            let item = hit.item
            add("\(number + 1). \(item.title)")
            if let action = hit.action {
                var tap = "   tap: \(action.kind.rawValue)"
                if let url = action.url { tap += " \(url)" }
                if let name = action.app?.name { tap += " (\(name))" }
                add(tap)
            }
            if let url = item.webURL, url != hit.action?.url { add("   \(url)") }
            if let snippet = hit.snippet.map(format), !snippet.isEmpty {
                lines.append("   \(snippet)")
            } else if let description = item.contentDescription {
                add("   \(description.prefix(160))")
            }
            var facts: [String] = []
            if let rating = item.rating { facts.append("rated \(rating)/\(item.ratingScale.formatted())" + (item.ratingCount.map { " (\($0))" } ?? "")) }
            if let price = item.price { facts.append([price, item.currency].compactMap { $0 }.joined(separator: " ")) }
            if let distance = hit.distance { facts.append(distance < 1 ? "\(Int((distance * 1000).rounded())) m away" : String(format: "%.1f km away", distance)) }
            if !facts.isEmpty { add("   " + facts.joined(separator: " · ")) }
            lines.append("")
        }
        if let facets = response.facets {
            for (facet, values) in facets.counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let label = facet == .contentType ? "By content type" : "By site"
                add("\(label)\(facets.exact ? "" : " (of the best \(Facet.candidates))"): "
                    + (values.isEmpty ? "none" : values.map { "\($0.value) \($0.count)" }.joined(separator: ", ")))
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// The snippet's pieces escaped, joined by the highlight's own sequences (bold on a
    /// terminal, `*` otherwise); line breaks become spaces.
    private func format(_ snippet: String) -> String {
        let on = highlight ? "\u{1B}[1m" : "*", off = highlight ? "\u{1B}[0m" : "*"
        var out = ""
        for scalar in snippet.replacingOccurrences(of: "\n", with: " ").unicodeScalars {
            switch String(scalar) {
            case SearchRequest.snippetStart: out += on
            case SearchRequest.snippetEnd: out += off
            default: out += TerminalText.escaped(String(scalar))
            }
        }
        return out
    }
}

extension Double {
    /// `5` rather than `5.0`.
    func formatted() -> String {
        self == self.rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
