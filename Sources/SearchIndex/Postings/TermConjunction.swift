/// The common case of ``BlockMaxSearch/conjunctive(_:rowids:heap:exhaustive:admit:)``
/// without the node tree: every clause a single term (no phrase, no alternatives), the
/// cursors in one buffer of values, so the loop over millions of postings does no
/// reference counting and no dynamic calls. Same rules, same results.
enum TermConjunction {
    struct Clause {
        var cursor: PostingCursor
        let idf: Double
    }

    /// - Parameters:
    ///   - clauses: ordered rarest first; the first leads.
    static func search(_ clauses: UnsafeMutableBufferPointer<Clause>, lengths: UnsafeBufferPointer<UInt16>, averageLength: Double,
                       boundFactor: Double, rowids: [Int64], heap: inout TopK, exhaustive: Bool, admit: BlockMaxSearch.Admission)
    {
        guard !clauses.isEmpty else { return }
        let saturationTop = BM25.k1 + 1
        let constant = BM25.k1 * (1 - BM25.b)
        let perToken = (BM25.k1 * BM25.b / averageLength)
        var stretchBound = Double.infinity
        var stretchLast: Int32 = -1
        let count = clauses.count
        while clauses[0].cursor.doc != PostingCursor.end {
            let candidate = clauses[0].cursor.doc
            if !exhaustive, heap.threshold > -.infinity {
                if candidate > stretchLast {
                    stretchBound = 0
                    stretchLast = PostingCursor.end
                    for i in 0..<count {
                        guard let block = clauses[i].cursor.shallow(candidate) else { return }
                        stretchBound += clauses[i].idf * Double(block.bound) * boundFactor
                        stretchLast = min(stretchLast, block.last)
                    }
                }
                if stretchBound <= heap.threshold {
                    guard stretchLast < PostingCursor.end - 1 else { return }
                    clauses[0].cursor.advance(to: stretchLast + 1)
                    continue
                }
            }
            var moved = candidate
            var i = 1
            while i < count {
                clauses[i].cursor.advance(to: candidate)
                moved = clauses[i].cursor.doc
                if moved != candidate { break }
                i += 1
            }
            if moved == PostingCursor.end { return }
            if moved != candidate {
                clauses[0].cursor.advance(to: moved)
                continue
            }
            let length = Double(lengths[Int(candidate)])
            var score = 0.0
            for j in 0..<count {
                let frequency = Double(clauses[j].cursor.frequency)
                score += clauses[j].idf * ((frequency * saturationTop) / (frequency + constant + perToken * length))
            }
            if heap.admits(score), let admitted = admit(candidate, score) { heap.insert(admitted, rowid: rowids[Int(candidate)]) }
            clauses[0].cursor.next()
        }
    }
}
