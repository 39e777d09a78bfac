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
    /// Bytes of the description and of the body read for the fragment: a long article's
    /// fragment comes from its first 64 KB, so that ten results of 256 KB bodies cost a page
    /// tens of milliseconds, not half a second.
    static let readBytes = 64 * 1024

    /// - Parameters:
    ///   - columns: title, keywords, description, body.
    ///   - language: the item's, whose stems the text is read with (a marked stem in `terms`
    ///     marks every word of that stem).
    ///   - terms: the query's tokens (document form), any of which counts as a match.
    static func make(columns: [String], language: String?, terms: Set<[UInt8]>, start: String, end: String,
                     tokenizer: SearchTokenizer.Session) -> String? {
        let stemmer = tokenizer.stemmers.language(language)
        // The terms by number, found by their hash (a token is hashed in place, not copied).
        let termList = Array(terms)
        var termNumbers: [UInt64: [Int]] = [:]
        for (number, term) in termList.enumerated() { termNumbers[term.withUnsafeBytes { WordHash.hash($0) }, default: []].append(number) }
        /// One column read as positions (a word and what stands at its position) and the
        /// matches, each with the position it stands at and its term's number.
        struct Reading {
            var column: Int
            var positions: [Range<Int>] = []
            var matches: [(position: Int, range: Range<Int>, term: Int)] = []
            var distinct = 0
        }
        var best: Reading?
        var fallback: Reading?
        var columns = columns
        for column in columns.indices.dropFirst(2) { columns[column] = columns[column].prefix(utf8Bytes: Self.readBytes) }
        if columns.count > 3, let title = columns.first { columns[3] = withoutTitleLines(columns[3], title: title) }
        for (column, text) in columns.enumerated() where column >= 2 && !text.isEmpty {
            var reading = Reading(column: column)
            tokenizer.analyze(text, language: stemmer) { token, colocated, from, to in
                if !(colocated && !reading.positions.isEmpty) { reading.positions.append(from..<to) }
                guard let candidates = termNumbers[WordHash.hash(token)] else { return }
                for number in candidates where termList[number].elementsEqual(token) {
                    reading.matches.append((reading.positions.count - 1, from..<to, number))
                }
            }
            guard !reading.positions.isEmpty else { continue }
            reading.distinct = Set(reading.matches.map(\.term)).count
            if fallback == nil { fallback = reading }
            if reading.distinct > 0, best == nil || reading.distinct > best!.distinct { best = reading }
        }
        guard let chosen = best ?? fallback else { return nil }
        let window = Self.window(chosen.positions.count, chosen.matches.map { ($0.position, $0.term) }, terms: termList.count)
        let positions = chosen.positions
        let text = Array(columns[chosen.column].utf8)
        let from = window.lowerBound == 0 ? 0 : positions[window.lowerBound].lowerBound
        let to = window.upperBound == positions.count ? text.count : positions[window.upperBound - 1].upperBound
        var marks = chosen.matches.filter { window.contains($0.position) && $0.range.lowerBound >= from && $0.range.upperBound <= to }.map(\.range)
            .sorted { $0.lowerBound < $1.lowerBound }
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

    /// The window of ``windowTokens`` positions (of `count`) with the most distinct terms,
    /// then the most matches, the earliest of equals: slid one position at a time with the
    /// terms' counts kept up to date, so a long body costs one pass. `matches` are (position,
    /// term number) in position order; `terms` how many numbers there are.
    static func window(_ count: Int, _ matches: [(position: Int, term: Int)], terms: Int) -> Range<Int> {
        guard count > windowTokens else { return 0..<count }
        var counts = [Int](repeating: 0, count: terms)
        var distinct = 0
        var total = 0
        var entering = 0
        var leaving = 0
        func add(upTo position: Int) {
            while entering < matches.count, matches[entering].position < position {
                if counts[matches[entering].term] == 0 { distinct += 1 }
                counts[matches[entering].term] += 1
                total += 1
                entering += 1
            }
        }
        func remove(below position: Int) {
            while leaving < matches.count, matches[leaving].position < position {
                counts[matches[leaving].term] -= 1
                if counts[matches[leaving].term] == 0 { distinct -= 1 }
                total -= 1
                leaving += 1
            }
        }
        add(upTo: windowTokens)
        var top = (distinct, total)
        var best = 0
        for first in 1...(count - windowTokens) {
            remove(below: first)
            add(upTo: first + windowTokens)
            if (distinct, total) > top {
                top = (distinct, total)
                best = first
            }
        }
        return best..<(best + windowTokens)
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
