import Items
import TextUtilities

/// The best fragment of a result's text for the words searched, with the matches marked,
/// made the way FTS5's `snippet()` makes them: of the description and the body, the one
/// with the most distinct query terms, a window of at most ``windowTokens`` tokens holding
/// as many of them as can be, `…` where the window cuts the text. Never the title (a result
/// shows it already) nor the keyword list: when neither the description nor the body holds
/// a query term, the start of the description (else of the body).
enum Snippet {
    static let windowTokens = 16
    static let ellipsis = "…"

    /// - Parameters:
    ///   - columns: title, keywords, description, body.
    ///   - language: the item's, whose stems the text is read with (a marked stem in `terms`
    ///     marks every word of that stem).
    ///   - terms: the query's tokens (document form), any of which counts as a match.
    static func make(columns: [String], language: String?, terms: Set<[UInt8]>, start: String, end: String,
                     tokenizer: SearchTokenizer.Session) -> String? {
        let stemmer = tokenizer.stemmers.language(language)
        struct Position {
            var range: Range<Int>
            var matches: [Range<Int>] = []
            var terms: [[UInt8]] = []
        }
        var best: (column: Int, positions: [Position], score: Int)?
        var fallback: (column: Int, positions: [Position])?
        var columns = columns
        if columns.count > 3, let title = columns.first { columns[3] = withoutTitleLines(columns[3], title: title) }
        for (column, text) in columns.enumerated() where column >= 2 && !text.isEmpty {
            var positions: [Position] = []
            tokenizer.analyze(text, language: stemmer) { token, colocated, from, to in
                if !(colocated && !positions.isEmpty) { positions.append(Position(range: from..<to)) }
                let bytes = Array(token)
                if terms.contains(bytes) {
                    positions[positions.count - 1].matches.append(from..<to)
                    positions[positions.count - 1].terms.append(bytes)
                }
            }
            guard !positions.isEmpty else { continue }
            if fallback == nil { fallback = (column, positions) }
            let distinct = Set(positions.flatMap(\.terms)).count
            if distinct > 0, best == nil || distinct > best!.score { best = (column, positions, distinct) }
        }
        guard let best = best ?? fallback.map({ ($0.column, $0.positions, 0) }) else { return nil }
        let positions = best.positions
        // The window with the most distinct terms, then the most matches, earliest first.
        var window = 0..<min(positions.count, windowTokens)
        if positions.count > windowTokens {
            var top = (-1, -1)
            for first in 0...(positions.count - windowTokens) {
                let slice = positions[first..<(first + windowTokens)]
                let score = (Set(slice.flatMap(\.terms)).count, slice.reduce(0) { $0 + $1.matches.count })
                if score > top {
                    top = score
                    window = first..<(first + windowTokens)
                }
            }
        }
        let text = Array(columns[best.column].utf8)
        let from = window.lowerBound == 0 ? 0 : positions[window.lowerBound].range.lowerBound
        let to = window.upperBound == positions.count ? text.count : positions[window.upperBound - 1].range.upperBound
        var marks = positions[window].flatMap(\.matches).filter { $0.lowerBound >= from && $0.upperBound <= to }.sorted { $0.lowerBound < $1.lowerBound }
        // Overlapping matches (a bigram and the unigram under it) become one.
        var merged: [Range<Int>] = []
        for mark in marks {
            if let last = merged.last, mark.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, mark.upperBound)
            } else {
                merged.append(mark)
            }
        }
        marks = merged
        var output = window.lowerBound == 0 ? "" : ellipsis
        var cursor = from
        for mark in marks {
            output += String(decoding: text[cursor..<mark.lowerBound], as: UTF8.self)
            output += start + String(decoding: text[mark], as: UTF8.self) + end
            cursor = mark.upperBound
        }
        output += String(decoding: text[cursor..<to], as: UTF8.self)
        if window.upperBound < positions.count { output += ellipsis }
        return output
    }

    /// The body without its lines that only repeat the title (a page's `<h1>` is most often
    /// its title, or the title less the site's name): the result shows the title already.
    static func withoutTitleLines(_ body: String, title: String) -> String {
        let title = title.trimmingASCIIWhitespace().lowercased()
        guard !title.isEmpty else { return body }
        // A line far longer than the title cannot be it (lowercasing changes a scalar's
        // UTF-8 length at most threefold): such lines, most of a body, are not lowercased.
        let longest = 3 * title.utf8.count
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        let kept = lines.filter { line in
            let trimmed = line.trimmingASCIIWhitespace()
            guard trimmed.utf8.count <= longest else { return true }
            let text = trimmed.lowercased()
            return text.isEmpty || !(text == title || (text.count >= 4 && title.hasPrefix(text)))
        }
        return kept.count == lines.count ? body : kept.joined(separator: "\n")
    }
}
