import FoundationEssentials
import Items
import TextUtilities

/// Reads a document's text to count where tokens stand one after another: how often each
/// phrase occurs, weighted by column, as FTS5 counts phrase instances for bm25. A single
/// token is a phrase of one. Each field is read to ``readBytes``: a phrase's count in a long
/// article is that of its opening (never more than the count its bound assumed, so pruning
/// stays exact), and a search reading ten 256 KB bodies stays within milliseconds.
enum PhraseMatcher {
    static let readBytes = 64 * 1024

    /// The weighted frequency of each phrase (its tokens in query form; a marked stem stands
    /// for every word of that stem) in the columns (title, keywords, description, body),
    /// reading the text as the index analysed it: its words and, in `language`, their stems.
    static func frequencies(of phrases: [[[UInt8]]], in columns: [String], language: String?, tokenizer: SearchTokenizer.Session) -> [Double] {
        // Each distinct query token gets a number; a position holds the numbers found there.
        var numbers: [[UInt8]: Int] = [:]
        let phraseNumbers: [[Int]] = phrases.map { phrase in
            phrase.map { token in
                if let known = numbers[token] { return known }
                numbers[token] = numbers.count
                return numbers.count - 1
            }
        }
        let words = (numbers.count + 63) / 64
        var result = [Double](repeating: 0, count: phrases.count)
        guard words > 0 else { return result }
        let stemmer = tokenizer.stemmers.language(language)
        // The tokens found by their hash, without copying each token of the text.
        var byHash: [UInt64: [(token: [UInt8], number: Int)]] = [:]
        for (token, number) in numbers { byHash[token.withUnsafeBytes { WordHash.hash($0) }, default: []].append((token, number)) }
        // One bit per query token at each position, `words` 64-bit words a position.
        var masks: [UInt64] = []
        var positions = 0
        for (column, text) in columns.enumerated() where !text.isEmpty {
            masks.removeAll(keepingCapacity: true)
            positions = 0
            tokenizer.analyze(text.prefix(utf8Bytes: Self.readBytes), language: stemmer) { token, colocated, _, _ in
                if !(colocated && positions > 0) {
                    masks.append(contentsOf: repeatElement(0, count: words))
                    positions += 1
                }
                guard let candidates = byHash[WordHash.hash(token)] else { return }
                for candidate in candidates where candidate.token.elementsEqual(token) {
                    masks[(positions - 1) * words + candidate.number / 64] |= 1 << UInt64(candidate.number % 64)
                }
            }
            let weight = Double(BM25.columnWeights[column])
            for (index, phrase) in phraseNumbers.enumerated() where !phrase.isEmpty && phrase.count <= positions {
                var hits = 0
                for start in 0...(positions - phrase.count) {
                    var matches = true
                    for (offset, number) in phrase.enumerated() where masks[(start + offset) * words + number / 64] & (1 << UInt64(number % 64)) == 0 {
                        matches = false
                        break
                    }
                    if matches { hits += 1 }
                }
                result[index] += weight * Double(hits)
            }
        }
        return result
    }

    /// The document's length in tokens over the columns, as the index counts it.
    static func length(of columns: [String], tokenizer: SearchTokenizer.Session) -> Int {
        var length = 0
        for text in columns where !text.isEmpty {
            var first = true
            tokenizer.tokenize(text, mode: .document) { _, colocated, _, _ in
                if !colocated || first { length += 1 }
                first = false
            }
        }
        return min(length, SegmentLayout.maximumLength)
    }
}
