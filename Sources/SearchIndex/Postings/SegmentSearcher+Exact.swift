import Glibc
import Items

/// Exact scores and matches of single documents: what the postings' bounds are checked
/// against, and what a phrase needs its text for.
extension SegmentSearcher {
    /// A document's exact score: each single token's weighted frequency from its segment's
    /// postings, each phrase's counted where its tokens stand in a row in the text — a CJK
    /// word as the occurrences of its characters (a run of CJK characters is one run of
    /// bigrams, so the word's bigrams stand in a row exactly where its characters do), any
    /// other phrase by reading the text as the index analysed it — summed as ``WindowSearch``
    /// sums (clause by clause, each clause's bonus after its units), so that a phrase found
    /// as often as its rarest token scores exactly its estimate. Nil when the query does not
    /// match the document.
    func exactScore(_ rowid: Int64, _ query: PostingsQuery, idfs: [[Double]]) throws -> Double? {
        guard let (segment, ordinal) = place(of: rowid) else { return nil }
        let units = query.clauses.flatMap(\.units)
        var frequencies = [Double](repeating: 0, count: units.count)
        var characters: [(unit: Int, text: [UInt8])] = []
        var analysed: [Int] = []
        for (index, unit) in units.enumerated() {
            if unit.tokens.count == 1 {
                guard let term = unit.tokens[0].withUnsafeBytes({ segment.term($0) }) else { continue }
                let postings = reader.segments.postings(segment: segment, term: term)
                var cursor = PostingCursor(postings, documentLimit: segment.documentCount)
                cursor.advance(to: ordinal)
                if cursor.doc == ordinal { frequencies[index] = Double(cursor.frequency) }
                cursor.release()
            } else if let run = Self.characters(ofBigrams: unit.tokens) {
                characters.append((index, run))
            } else {
                analysed.append(index)
            }
        }
        if !characters.isEmpty || !analysed.isEmpty {
            guard let document = try analysedText(of: rowid) else { return nil }
            for (unit, run) in characters {
                for (column, text) in document.columns.enumerated() {
                    frequencies[unit] += Double(BM25.columnWeights[column]) * Double(Self.occurrences(of: run, in: text))
                }
            }
            if !analysed.isEmpty {
                let found = PhraseMatcher.frequencies(of: analysed.map { units[$0].tokens }, in: document.columns, language: document.language,
                                                      tokenizer: tokenizer)
                for (index, unit) in analysed.enumerated() { frequencies[unit] = found[index] }
            }
        }
        let length = Double(segment.lengths[Int(ordinal)])
        let norm = BM25.Norm(averageLength: dictionary.averageLength)
        var score = 0.0
        var matched = 0
        var unit = 0
        for (clause, clauseIDFs) in zip(query.clauses, idfs) {
            var value = 0.0
            var any = false
            for idf in clauseIDFs {
                let frequency = frequencies[unit]
                unit += 1
                guard frequency > 0 else { continue }
                any = true
                value += idf * norm.saturation(frequency, length: length)
            }
            if any {
                matched += 1
                score += value + Self.bonus(clause, idfs: clauseIDFs)
            }
        }
        if query.requireAll ? matched < query.clauses.count : matched == 0 { return nil }
        return score
    }

    /// The characters a phrase of CJK bigrams stands for (`博物 物馆` → `博物馆`), as UTF-8;
    /// nil when the tokens are not such a chain.
    static func characters(ofBigrams tokens: [[UInt8]]) -> [UInt8]? {
        var run: [Unicode.Scalar] = []
        for token in tokens {
            let scalars = Array(String(decoding: token, as: UTF8.self).unicodeScalars)
            guard scalars.count == 2, scalars.allSatisfy({ SearchTokenizer.isCJK($0.value) }) else { return nil }
            if run.isEmpty {
                run = scalars
            } else {
                guard run.last == scalars[0] else { return nil }
                run.append(scalars[1])
            }
        }
        return run.isEmpty ? nil : Array(String(String.UnicodeScalarView(run)).utf8)
    }

    /// How often `needle` occurs in `text`, overlapping occurrences included (as a phrase is
    /// counted at every position it starts); UTF-8 matches only at character boundaries.
    static func occurrences(of needle: [UInt8], in text: String) -> Int {
        var text = text
        return text.withUTF8 { haystack in
            needle.withUnsafeBytes { needle in
                guard let first = needle.first, needle.count <= haystack.count, let base = haystack.baseAddress else { return 0 }
                var count = 0
                var at = 0
                while at + needle.count <= haystack.count {
                    guard let found = memchr(base + at, Int32(first), haystack.count - needle.count + 1 - at) else { break }
                    let start = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                    if memcmp(base + start, needle.baseAddress!, needle.count) == 0 { count += 1 }
                    at = start + 1
                }
                return count
            }
        }
    }

    /// How many of the query's clauses a document matches: from the postings of its
    /// segment, or, when a clause holds a phrase (whose postings say only that its tokens are
    /// there), from its text.
    func matchedClauses(_ rowid: Int64, _ query: PostingsQuery) throws -> Int {
        let phrases = query.clauses.contains { $0.units.contains { $0.tokens.count > 1 } }
        if !phrases, let (segment, ordinal) = place(of: rowid) {
            var matched = 0
            for clause in query.clauses {
                var found = false
                for unit in clause.units where !found {
                    guard let term = unit.tokens[0].withUnsafeBytes({ segment.term($0) }) else { continue }
                    let postings = reader.segments.postings(segment: segment, term: term)
                    var cursor = PostingCursor(postings, documentLimit: segment.documentCount)
                    cursor.advance(to: ordinal)
                    found = cursor.doc == ordinal
                    cursor.release()
                }
                if found { matched += 1 }
            }
            return matched
        }
        guard let document = try analysedText(of: rowid) else { return 0 }
        let units = query.clauses.flatMap { $0.units.map(\.tokens) }
        let frequencies = PhraseMatcher.frequencies(of: units, in: document.columns, language: document.language, tokenizer: tokenizer)
        var unit = 0
        var matched = 0
        for clause in query.clauses {
            let found = frequencies[unit..<(unit + clause.units.count)].contains { $0 > 0 }
            unit += clause.units.count
            if found { matched += 1 }
        }
        return matched
    }

    /// The segment holding `rowid` and its ordinal there.
    func place(of rowid: Int64) -> (SegmentReader, Int32)? {
        for segment in segments where segment.info.minimumRowid <= rowid && rowid <= segment.info.maximumRowid {
            let rowids = segment.rowids
            let low = rowids.firstIndex(atLeast: rowid)
            if low < rowids.count, rowids[low] == rowid { return (segment, Int32(low)) }
        }
        return nil
    }
}
