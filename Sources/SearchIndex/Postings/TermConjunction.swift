/// The common case of ``BlockMaxSearch/conjunctive(_:rowids:heap:exhaustive:admit:)``
/// without the node tree: every clause one term or one phrase (no alternatives), the
/// cursors in one buffer of values, so the loop over millions of postings does no
/// reference counting and no dynamic calls. Same rules, same results.
///
/// A phrase is a group of cursors that must all match, scored as if the phrase occurred as
/// often as its rarest token (an upper bound the caller makes exact from the text).
enum TermConjunction {
    struct Group {
        /// Indexes into the cursors.
        var members: [Int]
        let idf: Double
    }

    /// - Parameters:
    ///   - cursors: every term's cursor, the rarest first (it leads).
    ///   - groups: the scored units over the cursors; every cursor is in one group.
    static func search(_ cursors: UnsafeMutableBufferPointer<PostingCursor>, groups: [Group], lengths: UnsafeBufferPointer<UInt16>,
                       averageLength: Double, boundFactor: Double, documents: SegmentDocuments, heap: inout TopK, exhaustive: Bool,
                       admit: BlockMaxSearch.Admission)
    {
        guard !cursors.isEmpty else { return }
        let saturationTop = BM25.k1 + 1
        let constant = BM25.k1 * (1 - BM25.b)
        let perToken = (BM25.k1 * BM25.b / averageLength)
        let count = cursors.count
        let singles = groups.allSatisfy { $0.members.count == 1 }
        // For single terms, the group of cursor i is the one listing it.
        var idfOfCursor = [Double](repeating: 0, count: count)
        for group in groups where group.members.count == 1 { idfOfCursor[group.members[0]] = group.idf }
        var bounds = [Float](repeating: 0, count: count)
        var stretchBound = Double.infinity
        var stretchLast: Int32 = -1
        while cursors[0].doc != PostingCursor.end {
            let candidate = cursors[0].doc
            if !exhaustive, heap.threshold > -.infinity {
                if candidate > stretchLast {
                    stretchLast = PostingCursor.end
                    for i in 0..<count {
                        guard let block = cursors[i].shallow(candidate) else { return }
                        bounds[i] = block.bound
                        stretchLast = min(stretchLast, block.last)
                    }
                    stretchBound = 0
                    for group in groups {
                        var bound = Float.infinity
                        for member in group.members { bound = min(bound, bounds[member]) }
                        stretchBound += group.idf * Double(bound) * boundFactor
                    }
                }
                if stretchBound < heap.threshold {
                    guard stretchLast < PostingCursor.end - 1 else { return }
                    cursors[0].advance(to: stretchLast + 1)
                    continue
                }
            }
            var moved = candidate
            var i = 1
            while i < count {
                cursors[i].advance(to: candidate)
                moved = cursors[i].doc
                if moved != candidate { break }
                i += 1
            }
            if moved == PostingCursor.end { return }
            if moved != candidate {
                cursors[0].advance(to: moved)
                continue
            }
            let length = Double(lengths[Int(candidate)])
            var score = 0.0
            if singles {
                for j in 0..<count {
                    let frequency = Double(cursors[j].frequency)
                    score += idfOfCursor[j] * ((frequency * saturationTop) / (frequency + constant + perToken * length))
                }
            } else {
                for group in groups {
                    var lowest = UInt32.max
                    for member in group.members { lowest = min(lowest, cursors[member].frequency) }
                    let frequency = Double(lowest)
                    score += group.idf * ((frequency * saturationTop) / (frequency + constant + perToken * length))
                }
            }
            if heap.admits(score), let admitted = admit(candidate, score) { documents.insert(admitted, candidate, into: &heap) }
            cursors[0].next()
        }
    }
}
