import Items
import SearchModel
/// A user's query as words and their tokens; no part of the text is ever syntax.
///
/// The text is split into words at whitespace; each word is tokenized as documents are
/// (query mode), so quotes, `AND`, `NEAR`, `*`, `:`, `^` and parentheses are searched as
/// text and punctuation is dropped the same way it is dropped from documents. A word of
/// several tokens (a CJK run, `e-mail`) is searched as its parts and its phrase
/// (``QueryPlan``). Words that leave no token (`()`, `--`) are ignored. While typing, the
/// last word may be searched as a prefix when it ends in a word of three or more letters:
/// shorter prefixes match too much of the vocabulary to be useful, and CJK characters are
/// indexed one by one already.
///
/// A query may be a pasted paragraph: up to ``maximumLength`` characters, any number of
/// words (the engine searches the most informative ``QueryPlan/maximumClauses`` terms).
public struct SearchQuery: Sendable, Hashable {
    public static let maximumLength = SearchRequest.Limits.queryCharacters

    /// The text as given.
    public let text: String
    /// The searchable words, in order.
    public let words: [String]
    /// Each word's tokens, as the index tokenizer makes them in query mode.
    let tokens: [[String]]
    /// True when the last word may be searched as a prefix while typing: any word not in
    /// a CJK script, from its first letter (`t`, `tr` already find `trail`), as platform
    /// search boxes answer. Completions are the most frequent words of the prefix, weighted
    /// below whole words.
    let lastWordIsPrefix: Bool

    /// Validates and splits `text`; `tokenize` is the index tokenizer in query mode.
    init(_ text: String, tokenize: (String) throws -> [String]) throws {
        self.text = text
        guard text.count <= Self.maximumLength else {
            throw SearchIndexError.invalidQuery("the query is longer than \(Self.maximumLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0 == "\u{FFFD}" || ($0.value < 0x20 && $0 != "\t") }) else {
            throw SearchIndexError.invalidQuery("the query contains invalid or control characters")
        }
        let candidates = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        var words: [String] = []
        var tokens: [[String]] = []
        for word in candidates {
            let wordTokens = try tokenize(word)
            guard !wordTokens.isEmpty else { continue }
            words.append(word)
            tokens.append(wordTokens)
        }
        guard let last = tokens.last?.last else {
            throw SearchIndexError.invalidQuery(
                candidates.isEmpty ? "the query is empty" : "the query has no searchable words (only punctuation)")
        }
        self.words = words
        self.tokens = tokens
        self.lastWordIsPrefix = !last.isEmpty && !last.unicodeScalars.contains { SearchTokenizer.isCJK($0.value) }
    }
}

/// Spelling alternatives from the index's own vocabulary: one edit for words of 4 or
/// more characters (Algolia's `minWordSizefor1Typo`; Meilisearch starts at 5), two for 9
/// or more, counting a transposition as one edit (Damerau–Levenshtein). What keeps a short
/// word's correction safe: only a word the index holds in no form is corrected, only into
/// words with its first letter (``SegmentReader/fuzzyTerms(near:edits:budget:_:)``), the
/// five most frequent, each counting ``QueryPlan/correctionWeight`` of a word, and never
/// into a word shorter than four letters; a word of three letters or fewer is too close to
/// too many words to correct.
enum TypoTolerance {
    static let shortestCorrection = 4

    static func allowedEdits(forLength length: Int) -> Int {
        length >= 9 ? 2 : length >= 4 ? 1 : 0
    }

    /// Optimal string alignment distance, giving up (returning `limit + 1`) as soon as
    /// the distance must exceed `limit`.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
