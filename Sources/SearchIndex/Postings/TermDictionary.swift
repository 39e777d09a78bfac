import SearchModel

/// The terms of the segments one read transaction sees, merged — document frequencies, the
/// vocabulary in byte order, spelling neighbours, completions — and the document and token
/// counts BM25 reads: what the query plan looks up, apart from the postings the searcher
/// walks (Lucene's terms dictionary beside its postings). With a router's statistics
/// (``using(_:)``) every number is the whole index's.
struct TermDictionary {
    let segments: [SegmentReader]
    /// Live documents, their tokens and mean length, the N and avgdl of BM25: this index's
    /// own, or with ``using(_:)`` the whole index's.
    private(set) var documents: Int
    private(set) var tokens: Int
    private(set) var averageLength: Double
    /// A router's statistics of the whole index (``CorpusStatistics``): with them, every
    /// number the query plan and the scores read is theirs, so every shard ranks alike.
    private var global: CorpusStatistics?
    /// Takes down what the plan looks up, for a router's statistics round.
    var recorder: StatisticsRecorder?

    init(segments: [SegmentReader], statistics: IndexStatistics) {
        self.segments = segments
        documents = statistics.documents
        tokens = statistics.tokens
        averageLength = BM25.averageLength(documents: statistics.documents, tokens: statistics.tokens)
    }

    /// The same terms, with the whole index's statistics.
    func using(_ statistics: CorpusStatistics) -> TermDictionary {
        var copy = self
        copy.global = statistics
        copy.documents = statistics.documents
        copy.tokens = statistics.tokens
        copy.averageLength = statistics.averageLength
        return copy
    }

    /// Documents holding `term`, over every segment (documents deleted since their segment
    /// was merged still count, until the next merge); with global statistics, theirs (this
    /// index's own for a term they lack).
    func frequency(_ term: [UInt8]) -> Int {
        if let given = global?.frequencies[term] { return given }
        let found = term.withUnsafeBytes { bytes in segments.reduce(0) { $0 + ($1.term(bytes)?.documents ?? 0) } }
        recorder?.frequencies[term] = found
        return found
    }

    /// Terms from `lower` up to `upper` with their document counts, merged over segments,
    /// in byte order.
    func vocabulary(from lower: [UInt8], below upper: [UInt8]?) -> [(term: [UInt8], documents: Int)] {
        var merged: [[UInt8]: Int] = [:]
        for segment in segments {
            segment.terms(from: lower, below: upper) { term, documents in merged[Array(term), default: 0] += documents }
        }
        return merged.map { ($0.key, $0.value) }.sorted { $0.term.lexicographicallyPrecedes($1.term) }
    }

    /// Terms within `edits` of `target` that share its first character, with their
    /// document counts over every segment, reading at most `budget` dictionary entries in
    /// all (``SegmentReader/fuzzyTerms(near:edits:budget:_:)``), the largest segments first.
    func fuzzyTerms(near target: [Unicode.Scalar], edits: Int, budget: Int) -> [(term: [UInt8], documents: Int)] {
        let word = Array(String(String.UnicodeScalarView(target)).utf8)
        if let global { return (global.spellings[word] ?? [:]).map { ($0.key, $0.value) } }
        let found = localFuzzyTerms(near: target, edits: edits, budget: budget)
        if let recorder {
            recorder.spellings[word] = Dictionary(CorpusStatistics.best(Dictionary(found, uniquingKeysWith: +), limit: StatisticsRecorder.candidates)
                .map { ($0.term, $0.documents) }, uniquingKeysWith: +)
        }
        return found
    }

    private func localFuzzyTerms(near target: [Unicode.Scalar], edits: Int, budget: Int) -> [(term: [UInt8], documents: Int)] {
        var left = budget
        var merged: [[UInt8]: Int] = [:]
        for segment in segments.sorted(by: { $0.info.terms > $1.info.terms }) where left > 0 {
            segment.fuzzyTerms(near: target, edits: edits, budget: &left) { term, documents in merged[Array(term), default: 0] += documents }
        }
        return merged.map { ($0.key, $0.value) }
    }

    /// The `limit` most frequent terms that start with `prefix` (itself excluded).
    func completions(of prefix: [UInt8], limit: Int) -> [[UInt8]] {
        var upper = prefix
        while let last = upper.last, last == 0xFF { upper.removeLast() }
        let end: [UInt8]? = upper.isEmpty ? nil : upper.dropLast() + [upper[upper.count - 1] + 1]
        if let global { return CorpusStatistics.best(global.completions[prefix] ?? [:], limit: limit).map(\.term) }
        let best = vocabulary(from: prefix, below: end).filter { $0.term != prefix }
            .sorted { $0.documents != $1.documents ? $0.documents > $1.documents : $0.term.lexicographicallyPrecedes($1.term) }
            .prefix(limit)
        recorder?.completions[prefix] = Dictionary(best.map { ($0.term, $0.documents) }, uniquingKeysWith: +)
        return best.map(\.term)
    }
}
