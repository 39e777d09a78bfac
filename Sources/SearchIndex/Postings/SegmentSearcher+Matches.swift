/// Every match of a query, not only the best: what facets count (Meilisearch, Typesense and
/// Elasticsearch count over every match). Read from the postings' ordinals alone — no score
/// — as a bit per document of each segment: a clause's units joined, the clauses met
/// (`requireAll`) or joined, masked by the filter's bits and by the segment's live documents
/// (``LiveRows``: all but its removed rows) and the expired rows. A phrase counts where all
/// its tokens are (its postings say no more); the caller says such counts are not exact.
///
/// The bits of a term in at least 1/64 of a segment's documents are kept
/// (``SegmentCache/termBits(segment:term:)``), as Lucene's query cache keeps the document
/// sets of clauses used often: a frequent word's postings are the costliest to decode and
/// the likeliest to be asked for again, and a segment's postings never change.
extension SegmentSearcher {

    /// Offers `collector` each segment with the bits of its ordinals the query matches that
    /// are live items, not among the `expired` rows (ascending), and that `allowed` passes.
    func collectMatches(_ query: PostingsQuery, live: LiveRows, expired: [Int64], allowed: FilterRows?,
                        into collector: inout some MatchCollector) throws {
        live.keep(segments: Set(segments.map(\.info.id)))
        for (segment, deleted) in zip(segments, deletedCounts) {
            guard var matched = try matches(query, in: segment) else { continue }
            let liveOrdinals = try live.ordinals(segment, deleted: deleted, connection: connection)
            LiveRows.mask(&matched, live: liveOrdinals, rowids: segment.rowids, expired: expired)
            if let passing = allowed?.ordinals(segment) {
                for index in matched.indices { matched[index] &= index < passing.count ? passing[index] : 0 }
            }
            matched.withUnsafeBufferPointer { collector.collect(segment, matches: $0) }
        }
    }

    /// The ordinals of `segment` the query matches, as bits; nil when none can.
    private func matches(_ query: PostingsQuery, in segment: SegmentReader) throws -> [UInt64]? {
        let words = segment.documentCount / 64 + 1
        guard query.requireAll else {
            // Any clause: every unit's documents into one set, a term's straight from its postings.
            var result = [UInt64](repeating: 0, count: words)
            var any = false
            for unit in query.clauses.lazy.flatMap(\.units) {
                if unit.tokens.count == 1 {
                    if try addTerm(unit.tokens[0], in: segment, words: words, into: &result) { any = true }
                } else if let bits = try unitMatches(unit, in: segment, words: words) {
                    Self.combine(&result, bits, and: false)
                    any = true
                }
            }
            return any ? result : nil
        }
        var result: [UInt64]?
        for clause in query.clauses {
            var clauseBits = [UInt64](repeating: 0, count: words)
            var found = false
            for unit in clause.units {
                guard let bits = try unitMatches(unit, in: segment, words: words) else { continue }
                Self.combine(&clauseBits, bits, and: false)
                found = true
            }
            guard found else { return nil }
            if result == nil { result = clauseBits } else { Self.combine(&result!, clauseBits, and: true) }
        }
        return result
    }

    /// `bits` ORed (or ANDed) into `into`, both of one segment's length.
    private static func combine(_ into: inout [UInt64], _ bits: [UInt64], and: Bool) {
        into.withUnsafeMutableBufferPointer { into in
            bits.withUnsafeBufferPointer { bits in
                let count = min(into.count, bits.count)
                if and {
                    for index in 0..<count { into[index] &= bits[index] }
                } else {
                    for index in 0..<count { into[index] |= bits[index] }
                }
            }
        }
    }

    /// Adds the documents holding `token` to `into`; false when the segment does not hold it.
    private func addTerm(_ token: [UInt8], in segment: SegmentReader, words: Int, into: inout [UInt64]) throws -> Bool {
        guard let term = token.withUnsafeBytes({ segment.term($0) }) else { return false }
        let dense = term.documents >= max(64, segment.documentCount / 64)
        guard !dense else {
            guard let bits = try unitMatches(PostingsQuery.Unit(tokens: [token]), in: segment, words: words) else { return false }
            Self.combine(&into, bits, and: false)
            return true
        }
        reader.segments.postings(segment: segment, term: term).mark(in: &into, documentLimit: segment.documentCount)
        return true
    }

    /// The documents holding every token of `unit`; nil when one of them is not in the segment.
    private func unitMatches(_ unit: PostingsQuery.Unit, in segment: SegmentReader, words: Int) throws -> [UInt64]? {
        var bits: [UInt64]?
        for token in unit.tokens {
            guard let term = token.withUnsafeBytes({ segment.term($0) }) else { return nil }
            let dense = term.documents >= max(64, segment.documentCount / 64)
            if dense, let known = reader.segments.termBits(segment: segment.info.id, term: token), known.count == words {
                if bits == nil { bits = known } else { Self.combine(&bits!, known, and: true) }
                continue
            }
            var tokenBits = [UInt64](repeating: 0, count: words)
            reader.segments.postings(segment: segment, term: term).mark(in: &tokenBits, documentLimit: segment.documentCount)
            if dense { reader.segments.keep(termBits: tokenBits, segment: segment.info.id, term: token) }
            if bits == nil { bits = tokenBits } else { Self.combine(&bits!, tokenBits, and: true) }
        }
        return bits
    }
}
