import FoundationEssentials

/// Reads a document's text to count where tokens stand one after another: how often each
/// phrase occurs, weighted by column, as FTS5 counts phrase instances for bm25. A single
/// token is a phrase of one.
enum PhraseMatcher {
    /// The weighted frequency of each phrase (its tokens in query form) in the columns
    /// (title, keywords, description, body).
    static func frequencies(of phrases: [[[UInt8]]], in columns: [String], tokenizer: SearchTokenizer.Session) -> [Double] {
        // Each distinct query token gets a bit; a position's mask says which stand there.
        var tokens: [[UInt8]] = []
        var bits: [[Int]] = []
        for phrase in phrases {
            bits.append(phrase.map { token in
                if let index = tokens.firstIndex(of: token) { return index }
                tokens.append(token)
                return tokens.count - 1
            })
        }
        var result = [Double](repeating: 0, count: phrases.count)
        guard tokens.count <= 64 else { return result }
        var masks: [UInt64] = []
        for (column, text) in columns.enumerated() where !text.isEmpty {
            masks.removeAll(keepingCapacity: true)
            tokenizer.tokenize(text, mode: .document) { token, colocated, _, _ in
                if !(colocated && !masks.isEmpty) { masks.append(0) }
                for (index, query) in tokens.enumerated() where query.count == token.count {
                    if query.withUnsafeBytes({ compareBytes($0, token) }) == 0 { masks[masks.count - 1] |= 1 << UInt64(index) }
                }
            }
            let weight = Double(BM25.columnWeights[column])
            for (index, phrase) in bits.enumerated() where !phrase.isEmpty && phrase.count <= masks.count {
                var hits = 0
                for start in 0...(masks.count - phrase.count) {
                    var matches = true
                    for (offset, bit) in phrase.enumerated() where masks[start + offset] & (1 << UInt64(bit)) == 0 {
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
