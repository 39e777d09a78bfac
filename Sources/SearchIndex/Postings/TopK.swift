import Items
/// The k best candidates so far, and the threshold a document must reach to get in: what a
/// search keeps while it walks the postings.
///
/// Candidates are totally ordered — score, then ``ItemKey/orderKey`` ascending, then rowid —
/// so which of several equal scores are kept does not depend on the order segments and
/// blocks are visited in. A document scoring exactly the threshold may still get in (on its
/// key), so a search may skip only what scores strictly below it.
///
/// A document offered from a segment is kept by its ordinal there, and its order key and
/// rowid are read from the segment's mapped columns only when they decide something: the
/// heap orders by score alone, and documents tying the threshold wait aside (``ties``) until
/// the threshold rises past them (most often: dropped unread) or they are many or the heap
/// is read, when their columns' pages are asked for together and then read. A walk over a
/// long list admits hundreds of documents before its threshold settles, each on a page of
/// its own in columns of tens of megabytes: on a cold page cache, a read each, one after
/// another, if each were read as it came.
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

    /// A kept candidate: resolved (``source`` −1, ``key`` and ``rowid`` set), or a segment's
    /// document (``source`` indexes ``sources``, ``ordinal`` its place there).
    private struct Slot {
        var score: Double
        var source: Int32
        var ordinal: Int32
        var key: UInt64
        var rowid: Int64
    }

    let capacity: Int
    /// The best `capacity` by score, a heap whose root has the lowest.
    private var heap: [Slot] = []
    /// Candidates scoring exactly the root's score that did not take a place in the heap:
    /// any of them may still rank above heap members of that score, on its key.
    private var ties: [Slot] = []
    /// The segments whose documents are kept by ordinal (held, so their columns stay mapped).
    private var sources: [SegmentDocuments] = []

    /// Ties kept aside at most before they are settled by their keys.
    private var tieLimit: Int { max(64, capacity * 4) }

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        heap.reserveCapacity(self.capacity)
    }

    /// The lowest score that may still get in (a document scoring exactly it competes on its
    /// key); −∞ until the heap is full.
    var threshold: Double { heap.count < capacity ? -.infinity : heap[0].score }

    mutating func collect(_ score: Double, key: UInt64, rowid: Int64) {
        insert(Slot(score: score, source: -1, ordinal: 0, key: key, rowid: rowid))
    }

    mutating func collect(_ score: Double, ordinal: Int32, in documents: SegmentDocuments) {
        if sources.last?.rowids.baseAddress != documents.rowids.baseAddress { sources.append(documents) }
        insert(Slot(score: score, source: Int32(sources.count - 1), ordinal: ordinal, key: 0, rowid: 0))
    }

    /// The best `capacity`, best first.
    var sorted: [Entry] {
        let all = heap + ties
        prefetch(all)
        return Array(all.map(entry).sorted { $0.precedes($1) }.prefix(capacity))
    }

    private mutating func insert(_ slot: Slot) {
        if heap.count < capacity {
            heap.append(slot)
            siftUp(heap.count - 1)
            return
        }
        let lowest = heap[0].score
        if slot.score < lowest { return }
        if slot.score == lowest {
            ties.append(slot)
            if ties.count > tieLimit { settleTies() }
            return
        }
        let out = heap[0]
        heap[0] = slot
        siftDown(0)
        // The one pushed out, and those waiting with it, compete only while the new lowest
        // score is theirs.
        if heap[0].score == out.score {
            ties.append(out)
            if ties.count > tieLimit { settleTies() }
        } else {
            ties.removeAll(keepingCapacity: true)
        }
    }

    /// Keeps, of the heap's lowest-scoring members and the ties (all of one score), as many
    /// as the heap holds of that score: the first by key, then rowid.
    private mutating func settleTies() {
        let lowest = heap[0].score
        let members = heap.indices.filter { heap[$0].score == lowest }
        let contenders = members.map { heap[$0] } + ties
        prefetch(contenders)
        let best = contenders.map { ($0, entry($0)) }.sorted { $0.1.precedes($1.1) }.prefix(members.count)
        for (index, (slot, entry)) in zip(members, best) {
            heap[index] = slot
            heap[index].source = -1
            heap[index].key = entry.key
            heap[index].rowid = entry.rowid
        }
        ties.removeAll(keepingCapacity: true)
    }

    /// Asks for the pages of the keys and rowids `slots` will read, all at once.
    private func prefetch(_ slots: [Slot]) {
        for slot in slots where slot.source >= 0 { sources[Int(slot.source)].willNeedKey(slot.ordinal) }
    }

    private func entry(_ slot: Slot) -> Entry {
        guard slot.source >= 0 else { return Entry(score: slot.score, key: slot.key, rowid: slot.rowid) }
        let documents = sources[Int(slot.source)]
        return Entry(score: slot.score, key: documents.keys[Int(slot.ordinal)], rowid: documents.rowids[Int(slot.ordinal)])
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[parent].score > heap[child].score else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var lowest = left
            if left + 1 < heap.count, heap[left + 1].score < heap[left].score { lowest = left + 1 }
            guard heap[lowest].score < heap[parent].score else { return }
            heap.swapAt(lowest, parent)
            parent = lowest
        }
    }
}
