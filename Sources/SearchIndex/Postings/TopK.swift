/// The k best candidates so far, as a heap whose root is the worst kept: what a search
/// keeps while it walks the postings, and the threshold a document must reach to get in.
///
/// Candidates are totally ordered — score, then ``ItemKey/orderKey`` ascending, then rowid —
/// so which of several equal scores are kept does not depend on the order segments and
/// blocks are visited in. A document scoring exactly the threshold may still get in (on its
/// key), so a search may skip only what scores strictly below it.
struct TopK {
    struct Entry {
        var score: Double
        var key: UInt64
        var rowid: Int64

        /// Whether this entry ranks before `other`.
        @inline(__always) func precedes(_ other: Entry) -> Bool {
            if score != other.score { return score > other.score }
            if key != other.key { return key < other.key }
            return rowid < other.rowid
        }
    }

    let capacity: Int
    private(set) var entries: [Entry] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        entries.reserveCapacity(self.capacity)
    }

    /// The lowest score that may still get in (a document scoring exactly it competes on its
    /// key); −∞ until the heap is full.
    var threshold: Double { entries.count < capacity ? -.infinity : entries[0].score }

    /// Whether a document scoring `score` might get in: cheap, before its key is read.
    @inline(__always) func admits(_ score: Double) -> Bool { score >= threshold }

    mutating func insert(_ score: Double, key: UInt64, rowid: Int64) {
        let entry = Entry(score: score, key: key, rowid: rowid)
        if entries.count < capacity {
            entries.append(entry)
            siftUp(entries.count - 1)
        } else if entry.precedes(entries[0]) {
            entries[0] = entry
            siftDown(0)
        }
    }

    /// Best first.
    var sorted: [Entry] { entries.sorted { $0.precedes($1) } }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[parent].precedes(entries[child]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var worst = left
            if left + 1 < entries.count, entries[left].precedes(entries[left + 1]) { worst = left + 1 }
            guard entries[parent].precedes(entries[worst]) else { return }
            entries.swapAt(worst, parent)
            parent = worst
        }
    }
}

/// Block-max retrieval over one segment: conjunctive (every clause must match) with the
/// rarest clause leading, or disjunctive (any clause), both skipping every stretch of
/// documents whose block bounds sum to no more than the heap's threshold (Ding & Suel's
/// block-max idea, on the blocks ``SegmentWriter`` bounds). Exact: a skipped document
/// could not have entered the heap (its bound is below the threshold; one at the threshold
/// is scored, as it may win on its key). With `exhaustive`, nothing is skipped — the reference
/// the pruned search is checked against.
enum BlockMaxSearch {
    /// Decides whether a matching document enters: nil when it does not (gone, expired),
    /// else its score. Called only for documents whose score beats the threshold.
    typealias Admission = (_ ordinal: Int32, _ score: Double) -> Double?

    static func conjunctive(_ clauses: [MatchNode], documents: SegmentDocuments, heap: inout TopK, exhaustive: Bool, admit: Admission) {
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
                if stretchBound < heap.threshold {
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
            if heap.admits(estimate), let admitted = admit(candidate, estimate) { documents.insert(admitted, candidate, into: &heap) }
            lead.next()
        }
    }

    static func disjunctive(_ clauses: [MatchNode], documents: SegmentDocuments, heap: inout TopK, exhaustive: Bool, admit: Admission) {
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
                if stretchBound < heap.threshold {
                    guard stretchLast < PostingCursor.end - 1 else { return }
                    any.advance(to: stretchLast + 1)
                    continue
                }
            }
            let estimate = any.score()
            if heap.admits(estimate), let admitted = admit(candidate, estimate) { documents.insert(admitted, candidate, into: &heap) }
            any.next()
        }
    }
}
