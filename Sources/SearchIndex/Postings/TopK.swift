import Items
/// The k best candidates so far, as a heap whose root is the worst kept: what a search
/// keeps while it walks the postings, and the threshold a document must reach to get in.
///
/// Candidates are totally ordered — score, then ``ItemKey/orderKey`` ascending, then rowid —
/// so which of several equal scores are kept does not depend on the order segments and
/// blocks are visited in. A document scoring exactly the threshold may still get in (on its
/// key), so a search may skip only what scores strictly below it.
struct TopK: ScoredCollector {
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

    mutating func collect(_ score: Double, key: UInt64, rowid: Int64) {
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
