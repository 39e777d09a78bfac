import Items
import SearchModel
import TextUtilities

/// Relevance feedback's reading of an index (``RelevanceFeedback``): the words of a first
/// answer's best documents, the request's own classes, and a shard's part in a router's
/// feedback rounds (``RoutedFeedback``, ``FirstAnswerCache``).
extension IndexSearch {
    /// ``RelevanceFeedback``'s words for the documents of a first answer.
    func feedback(_ first: [TopK.Entry], query: SearchQuery, plan: QueryPlan, segments: SegmentSearcher) throws -> [RelevanceFeedback.Term] {
        RelevanceFeedback.expansion(of: try readings(first, segments: segments), excluding: excluded(query, plan: plan),
                                    frequency: segments.dictionary.frequency, documentCount: segments.dictionary.documents)
    }

    /// The documents of a first answer read as the index analysed them, each distinct word
    /// with its stem class (so `matrix` and `matrices` count as one word): tokens are told
    /// apart by their 64-bit hash (``WordHash``) and each distinct word of a document is
    /// stemmed once, so a token costs one hash and one lookup, not an array.
    func readings(_ entries: [TopK.Entry], segments: SegmentSearcher) throws -> [RelevanceFeedback.Reading] {
        let fallback = tokenizer.stemmers.language(nil)
        var readings: [RelevanceFeedback.Reading] = []
        for entry in entries {
            guard let text = try segments.analysedText(of: entry.rowid) else { continue }
            let language = tokenizer.stemmers.language(text.language) ?? fallback
            var words: [[UInt8]] = []
            var index: [UInt64: Int] = [:]
            var counts: [Double] = []
            var length = 0.0
            for (column, value) in text.columns.enumerated() {
                let weight = Double(BM25.columnWeights[column])
                tokenizer.tokenize(value.prefix(utf8Bytes: RelevanceFeedback.readingBytes), mode: .document) { token, colocated, _, _ in
                    guard !colocated else { return }
                    let hash = WordHash.hash(token)
                    if let found = index[hash] {
                        counts[found] += weight
                    } else {
                        index[hash] = words.count
                        words.append(Array(token))
                        counts.append(weight)
                    }
                    length += weight
                }
            }
            let read = zip(words, counts).map { word, count in
                RelevanceFeedback.Reading.Word(form: word, stemClass: stemClass(word, language), count: count)
            }
            readings.append(RelevanceFeedback.Reading(score: entry.score, key: entry.key, length: length, words: read))
        }
        return readings
    }

    /// A word's class for feedback: its stem without the marker, or the word itself.
    private func stemClass(_ word: [UInt8], _ language: Stemmers.Language?) -> [UInt8] {
        language.flatMap { tokenizer.markedStem(of: word, $0) }.map { Array($0.dropFirst()) } ?? word
    }

    /// The request's own stem classes, which feedback does not add again.
    func excluded(_ query: SearchQuery, plan: QueryPlan) -> Set<[UInt8]> {
        var excluded = Set(plan.highlighted.map { $0.first == SearchTokenizer.Session.stemMarker ? Array($0.dropFirst()) : $0 })
        for token in query.tokens.joined() { excluded.insert(stemClass(Array(token.utf8), tokenizer.stemmers.language(nil))) }
        return excluded
    }

    /// The readings of this index's best `count` first-stage candidates for `request`
    /// (ranked with a router's `statistics`, when given) and the request's own stem classes: the part
    /// of a router's feedback documents this shard holds.
    func feedbackReadings(_ request: SearchRequest, statistics: CorpusStatistics?, count: Int) throws
        -> (readings: [RelevanceFeedback.Reading], excluded: Set<[UInt8]>)
    {
        let query = try SearchQuery(request.text) { tokenizer.tokens($0, query: true) }
        let segments = statistics.map(self.segments.using) ?? self.segments
        let languages = try statistics.map { $0.languages.sorted() } ?? IndexWriter.languages(connection)
        let plan = QueryPlan(query, typing: false, terms: segments.dictionary, tokenizer: tokenizer, languages: languages)
        let best: [TopK.Entry]
        if let answer = reader.firstAnswers.answer(try firstAnswerKey(request, plan: plan, segments: segments, languages: languages)) {
            best = answer
        } else {
            let allowed = request.filter.isEmpty ? nil : try reader.filters.rows(request.filter, connection: connection, searching: segments.segments)
            best = try segments.top(plan.query, k: max(1, count), now: request.now.timeIntervalSince1970, exhaustive: exhaustive,
                                    rows: CandidateRows(connection: connection), allowed: allowed)
        }
        return (try readings(Array(best.prefix(count)), segments: segments), excluded(query, plan: plan))
    }

    /// What a shard's first answer to a routed long request depends on (``FirstAnswerCache``):
    /// this file at its latest change, the request's text, filter and instant, and the
    /// statistics of every term its plan reads.
    func firstAnswerKey(_ request: SearchRequest, plan: QueryPlan, segments: SegmentSearcher, languages: [String]) throws -> FirstAnswerCache.Key {
        var frequencies: [[UInt8]: Int] = [:]
        for unit in plan.query.clauses.flatMap(\.units) { for token in unit.tokens { frequencies[token] = segments.dictionary.frequency(token) } }
        return FirstAnswerCache.Key(change: try ChangeLog.latest(connection), text: request.text, filter: request.filter,
                                    now: request.now.timeIntervalSince1970, documents: segments.dictionary.documents, tokens: segments.dictionary.tokens,
                                    languages: languages, frequencies: frequencies)
    }
}
