/// The k best candidates so far, as a min-heap on score: what a search keeps while it
/// walks the postings, and the threshold a document must beat to get in.
struct TopK {
    struct Entry {
        var score: Double
        var rowid: Int64
    }

    let capacity: Int
    private(set) var entries: [Entry] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries.reserveCapacity(self.capacity)
    }

    /// The score a new document must exceed; −∞ until the heap is full.
    var threshold: Double { entries.count < capacity ? -.infinity : entries[0].score }

    /// Whether a document scoring `score` would get in.
    @inline(__always) func admits(_ score: Double) -> Bool { score > threshold }

    mutating func insert(_ score: Double, rowid: Int64) {
        guard admits(score) else { return }
        if entries.count < capacity {
            entries.append(Entry(score: score, rowid: rowid))
            siftUp(entries.count - 1)
        } else {
            entries[0] = Entry(score: score, rowid: rowid)
            siftDown(0)
        }
    }

    /// Best first.
    var sorted: [Entry] { entries.sorted { ($0.score, $1.rowid) > ($1.score, $0.rowid) } }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].score < entries[parent].score else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            if left + 1 < entries.count, entries[left + 1].score < entries[left].score { smallest = left + 1 }
            guard entries[smallest].score < entries[parent].score else { return }
            entries.swapAt(smallest, parent)
            parent = smallest
        }
    }
}

/// Block-max retrieval over one segment: conjunctive (every clause must match) with the
/// rarest clause leading, or disjunctive (any clause), both skipping every stretch of
/// documents whose block bounds sum to no more than the heap's threshold (Ding & Suel's
/// block-max idea, on the blocks ``SegmentWriter`` bounds). Exact: a skipped document
/// could not have entered the heap. With `exhaustive`, nothing is skipped — the reference
/// the pruned search is checked against.
enum BlockMaxSearch {
    /// Decides whether a matching document enters: nil when it does not (gone, expired),
    /// else its score. Called only for documents whose score beats the threshold.
    typealias Admission = (_ ordinal: Int32, _ score: Double) -> Double?

    static func conjunctive(_ clauses: [MatchNode], rowids: [Int64], heap: inout TopK, exhaustive: Bool, admit: Admission) {
        guard !clauses.isEmpty else { return }
        let ordered = clauses.sorted { $0.cost < $1.cost }
        let lead = ordered[0]
        // Unretained views for the loop: `ordered` keeps the nodes alive, and reference
        // counting on every document would cost more than the scoring.
        let nodes = ordered.map { Unmanaged.passUnretained($0) }
        let others = nodes.dropFirst()
        // The bound of the stretch of documents the current blocks cover, recomputed only
        // when the lead leaves it.
        var stretchBound = Double.infinity
        var stretchLast: Int32 = -1
        while lead.doc != PostingCursor.end {
            let candidate = lead.doc
            if !exhaustive, heap.threshold > -.infinity {
                if candidate > stretchLast {
                    stretchBound = 0
                    stretchLast = PostingCursor.end
                    for clause in ordered {
                        guard let block = clause.bound(from: candidate) else { return }
                        stretchBound += block.bound
                        stretchLast = min(stretchLast, block.last)
                    }
                }
                if stretchBound <= heap.threshold {
                    guard stretchLast < PostingCursor.end - 1 else { return }
                    lead.advance(to: stretchLast + 1)
                    continue
                }
            }
            var moved: Int32 = candidate
            for node in others {
                moved = node._withUnsafeGuaranteedRef { clause in
                    clause.advance(to: candidate)
                    return clause.doc
                }
                if moved != candidate { break }
            }
            if moved == PostingCursor.end { return }
            if moved != candidate {
                lead.advance(to: moved)
                continue
            }
            var estimate = 0.0
            for node in nodes { estimate += node._withUnsafeGuaranteedRef { $0.score() } }
            if heap.admits(estimate), let admitted = admit(candidate, estimate) { heap.insert(admitted, rowid: rowids[Int(candidate)]) }
            lead.next()
        }
    }

    static func disjunctive(_ clauses: [MatchNode], rowids: [Int64], heap: inout TopK, exhaustive: Bool, admit: Admission) {
        let any = AnyNode(clauses)
        var stretchBound = Double.infinity
        var stretchLast: Int32 = -1
        while any.doc != PostingCursor.end {
            let candidate = any.doc
            if !exhaustive, heap.threshold > -.infinity {
                if candidate > stretchLast {
                    guard let block = any.bound(from: candidate) else { return }
                    (stretchBound, stretchLast) = block
                }
                if stretchBound <= heap.threshold {
                    guard stretchLast < PostingCursor.end - 1 else { return }
                    any.advance(to: stretchLast + 1)
                    continue
                }
            }
            let estimate = any.score()
            if heap.admits(estimate), let admitted = admit(candidate, estimate) { heap.insert(admitted, rowid: rowids[Int(candidate)]) }
            any.next()
        }
    }
}
