import Items
/// Top-k retrieval over one segment, a window of documents at a time — the
/// way Lucene's MaxScore bulk scorer works:
///
/// 1. For each clause, the most it can add in the window, from the block bounds of its
///    units' postings (``PostingCursor/bound(from:below:)``).
/// 2. MaxScore's split (Turtle & Flood, 1995): the clauses whose bounds together stay below
///    the heap's threshold are non-essential — a document matching only them cannot get in —
///    and a window where every clause is non-essential is skipped without decoding anything.
/// 3. The essential clauses' postings in the window are decoded a block at a time and scored
///    into one array per clause (a stem class or a prefix's completions is a union of lists:
///    they add up in the array, no merging of cursors).
/// 4. Each document an essential clause matched is checked against the threshold with the
///    non-essential clauses at their bounds; only those that pass have the non-essential
///    clauses' postings looked up.
///
/// A document's score is always summed in the same order — clause by clause, unit by unit,
/// each clause's bonus after its units — whichever clauses were essential, so exhaustive
/// scoring, pruned scoring, and shards of one index give the same bits. With `exhaustive`
/// every clause is essential and nothing is skipped: the reference the pruned search is
/// checked against.
final class WindowSearch {
    /// The largest window, and the one dense postings are read in: where the query's lists
    /// hold a posting for most documents, a small window's bounds skip more of them; where
    /// they are sparse, a large one costs fewer windows (measured on the index benchmark's
    /// query sets, BENCHMARKS.md).
    static let windowSize = 1024
    static let denseWindowSize = 256

    /// One unit of a clause: a term (one cursor) or a phrase (several, scored as if the
    /// phrase occurred as often as its rarest token — an upper bound ``SegmentSearcher``
    /// makes exact from the text).
    struct Unit {
        var firstCursor: Int
        var cursorCount: Int
        /// The unit's idf times its weight.
        var weight: Double
        /// The largest block bound of its postings (of its rarest token's, for a phrase).
        var maximum: Float
    }

    struct Clause {
        var units: Range<Int>
        /// Added once when any unit matches (BM25+'s δ; see ``PostingsQuery``).
        var bonus: Double
    }

    /// Decides whether a matching document enters: nil when it does not (gone, expired),
    /// else its score. Called only for documents whose score reaches the threshold.
    typealias Admission = (_ ordinal: Int32, _ score: Double) -> Double?

    let cursors: UnsafeMutableBufferPointer<PostingCursor>
    // The query's parts in buffers of their own: read for every window and document, without
    // array bounds and uniqueness checks.
    let units: UnsafeMutableBufferPointer<Unit>
    let clauses: UnsafeMutableBufferPointer<Clause>
    let documents: SegmentDocuments
    let lengths: UnsafeBufferPointer<UInt16>
    let norm: BM25.Norm
    let boundFactor: Double
    let buffers: WindowBuffers
    let window: Int
    /// The segment's documents a filter lets through, a bit per ordinal (``FilterRows``);
    /// nil lets every document through.
    let allowed: UnsafeBufferPointer<UInt64>?

    /// - Parameters:
    ///   - cursors: every unit's cursors, unit by unit (owned by the caller, who releases them).
    ///   - units: in clause order; `clauses` name them by range.
    init(cursors: UnsafeMutableBufferPointer<PostingCursor>, units: [Unit], clauses: [Clause], documents: SegmentDocuments,
         lengths: UnsafeBufferPointer<UInt16>, averageLength: Double, boundFactor: Double, buffers: WindowBuffers,
         allowed: UnsafeBufferPointer<UInt64>? = nil) {
        self.cursors = cursors
        self.allowed = allowed
        self.units = .allocate(capacity: units.count)
        _ = self.units.initialize(from: units)
        self.clauses = .allocate(capacity: clauses.count)
        _ = self.clauses.initialize(from: clauses)
        self.documents = documents
        self.lengths = lengths
        norm = BM25.Norm(averageLength: averageLength)
        self.boundFactor = boundFactor
        var postings = 0
        for i in 0..<cursors.count { postings += cursors[i].documents }
        window = min(postings > lengths.count ? Self.denseWindowSize : Self.windowSize, (lengths.count + 63) & ~63)
        self.buffers = buffers
        buffers.reserve(clauses: clauses.count, window: window)
    }

    deinit {
        units.deallocate()
        clauses.deallocate()
    }

    /// Offers every document of the segment that may get into `heap` (any collector: its
    /// threshold prunes) to it.
    func run<Collector: ScoredCollector>(heap: inout Collector, exhaustive: Bool, requireAll: Bool, admit: Admission) {
        let count = clauses.count
        guard count > 0, window > 0 else { return }
        let words = window / 64
        let state = RunState(count: count)
        defer { state.deallocate() }
        let bounds = state.bounds, essential = state.essential, order = state.order, leading = state.leading
        let essentials = state.essentials
        var essentialCount = 0
        // The most each clause can add anywhere in the segment, and which clauses must be
        // walked at all at the current threshold (a window starts at one of their postings).
        let maxima = state.maxima
        for k in 0..<count { maxima[k] = maximum(k) }
        var leadingThreshold = -Double.infinity
        let end = PostingCursor.end
        while true {
            let threshold = heap.threshold
            let pruning = !exhaustive && threshold > -.infinity
            if pruning, !requireAll, threshold != leadingThreshold {
                leadingThreshold = threshold
                Self.split(maxima, threshold, order, into: leading)
                if !leading.contains(true) { return }
            }
            var lower = end
            for k in 0..<count where leading[k] {
                for u in clauses[k].units {
            let unit = units[u]
                    for c in unit.firstCursor..<(unit.firstCursor + unit.cursorCount) { lower = min(lower, cursors[c].doc) }
                }
            }
            if lower == end { return }
            // Clauses that lead no window lag behind: bring them to it.
            skipAll(to: lower)
            let upper = Int32(min(Int(end), Int(lower) + window))
            if pruning {
                for k in 0..<count { bounds[k] = clauseBound(k, lower, upper) }
                if requireAll {
                    for k in 0..<count { essential[k] = true }
                } else {
                    Self.split(bounds, threshold, order, into: essential)
                }
                // Nothing essential, or (every clause required) not enough between them all.
                if !essential.contains(true) || (requireAll && Self.sum(bounds, essential, essential: true) < threshold) {
                    skipAll(to: upper)
                    continue
                }
            } else {
                for k in 0..<count { essential[k] = true }
            }
            let candidates = buffers.candidates
            if requireAll { for w in 0..<words { candidates[w] = ~0 } }
            for k in 0..<count where essential[k] {
                accumulate(k, lower, upper)
                let matched = buffers.matched + k * words
                if requireAll {
                    for w in 0..<words { candidates[w] &= matched[w] }
                } else {
                    for w in 0..<words { candidates[w] |= matched[w] }
                }
            }
            if let allowed { Self.mask(candidates, words: words, with: allowed, from: Int(lower)) }
            essentialCount = 0
            var others = 0.0
            for k in 0..<count {
                if essential[k] {
                    essentials[essentialCount] = k
                    essentialCount += 1
                } else {
                    others += bounds[k]
                }
            }
            // Most of the window matched? Words with a match first (a count of bits costs a
            // loop a word on this architecture's baseline), bits only when every word has one.
            var occupied = 0
            for w in 0..<words where candidates[w] != 0 { occupied += 1 }
            var dense = false
            if occupied == words {
                var matches = 0
                for w in 0..<words { matches += candidates[w].nonzeroBitCount }
                dense = matches * 8 > window
            }
            // A quick first check: the essential clauses' values and the others' bounds summed
            // in any order, with room for the rounding of a few dozen additions; only documents
            // that pass it have the sum in clause order computed. A document no essential
            // clause matched sums to `others`, which the split keeps below the threshold.
            let least = pruning ? heap.threshold - abs(heap.threshold) * 1e-12 - others : -Double.infinity
            if pruning, !requireAll, least > 0, dense {
                // Most of the window matched: one pass over its values.
                for w in 0..<words { candidates[w] = 0 }
                let passed = passing(UnsafeBufferPointer(rebasing: essentials[..<essentialCount]), least)
                // Many documents to look up: the other clauses' postings in the window are read
                // in one pass each instead (the same values, summed in the same order).
                if passed * 16 > window {
                    for k in 0..<count where !essential[k] && bounds[k] > 0 {
                        accumulate(k, lower, upper)
                        essential[k] = true
                        essentials[essentialCount] = k
                        essentialCount += 1
                    }
                }
                for index in 0..<passed {
                    let offset = Int(buffers.passing[index])
                    if let allowed, !Self.contains(allowed, Int(lower) + offset) { continue }
                    score(offset, lower + Int32(offset), pruning: true, essential, bounds, &heap, admit)
                }
            } else {
                for w in 0..<words where candidates[w] != 0 {
                    var bits = candidates[w]
                    candidates[w] = 0
                    while bits != 0 {
                        let offset = w * 64 + bits.trailingZeroBitCount
                        bits &= bits - 1
                        if pruning {
                            var quick = 0.0
                            for e in 0..<essentialCount { quick += value(essentials[e], offset) }
                            if quick < least { continue }
                        }
                        score(offset, lower + Int32(offset), pruning: pruning, essential, bounds, &heap, admit)
                    }
                }
            }
            for e in 0..<essentialCount { clear(essentials[e]) }
            skipAll(to: upper)
        }
    }

    /// Clears the bits of `candidates` (offsets from ordinal `start`) whose document `allowed`
    /// does not hold.
    @inline(__always)
    private static func mask(_ candidates: UnsafeMutablePointer<UInt64>, words: Int, with allowed: UnsafeBufferPointer<UInt64>, from start: Int) {
        let first = start >> 6, shift = UInt64(start & 63)
        for w in 0..<words {
            let low = first + w < allowed.count ? allowed[first + w] : 0
            let high = first + w + 1 < allowed.count ? allowed[first + w + 1] : 0
            candidates[w] &= shift == 0 ? low : (low >> shift) | (high << (64 - shift))
        }
    }

    @inline(__always)
    static func contains(_ allowed: UnsafeBufferPointer<UInt64>, _ ordinal: Int) -> Bool {
        let word = ordinal >> 6
        return word < allowed.count && allowed[word] & (UInt64(1) << UInt64(ordinal & 63)) != 0
    }

    /// MaxScore's split: the clauses with the smallest bounds are not essential while their
    /// bounds, summed in clause order as scores are, stay below the threshold.
    private static func split(_ bounds: UnsafeMutableBufferPointer<Double>, _ threshold: Double, _ order: UnsafeMutableBufferPointer<Int>,
                              into essential: UnsafeMutableBufferPointer<Bool>) {
        let count = bounds.count
        // Insertion sort: a query has a few clauses, and their order changes little from one
        // window to the next.
        for i in 1..<max(1, count) {
            let moving = order[i]
            var j = i
            while j > 0, bounds[order[j - 1]] > bounds[moving] {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = moving
        }
        for k in 0..<count { essential[k] = true }
        for i in 0..<count {
            let k = order[i]
            essential[k] = false
            var total = 0.0
            for j in 0..<count where !essential[j] { total += bounds[j] }
            if total >= threshold {
                essential[k] = true
                return
            }
        }
    }

    /// The offsets of the window whose essential values (with their bonuses) reach `least`,
    /// into ``WindowBuffers/passing``; returns how many. `least` is positive.
    private func passing(_ essentials: UnsafeBufferPointer<Int>, _ least: Double) -> Int {
        let values = buffers.values
        let passing = buffers.passing
        var passed = 0
        if essentials.count == 1 {
            let only = values + essentials[0] * window
            let bonus = clauses[essentials[0]].bonus
            // Without branches (the outcome is a coin toss on dense windows): every offset is
            // written, and kept by counting it. `least` is positive, so an unmatched 0 fails.
            for offset in 0..<window {
                let value = only[offset]
                passing[passed] = Int32(offset)
                passed += (value > 0 ? value + bonus : 0) >= least ? 1 : 0
            }
            return passed
        }
        // Clause by clause over the whole window (a loop the compiler vectorizes), in the
        // order the row-wise sum would take: adding 0 for a clause that did not match leaves
        // a sum's bits as they were.
        let sums = buffers.sums
        let first = values + essentials[0] * window
        let firstBonus = clauses[essentials[0]].bonus
        for offset in 0..<window {
            let value = first[offset]
            sums[offset] = value > 0 ? value + firstBonus : 0
        }
        for k in essentials.dropFirst() {
            let column = values + k * window
            let bonus = clauses[k].bonus
            for offset in 0..<window {
                let value = column[offset]
                sums[offset] += value > 0 ? value + bonus : 0
            }
        }
        for offset in 0..<window {
            passing[passed] = Int32(offset)
            passed += sums[offset] >= least ? 1 : 0
        }
        return passed
    }

    /// The most clause `k` can add to any document of the segment.
    private func maximum(_ k: Int) -> Double {
        var total = 0.0
        var any = false
        for u in clauses[k].units {
            let unit = units[u]
            guard unit.maximum > 0, unit.maximum.isFinite else { continue }
            total += unit.weight * Double(unit.maximum) * boundFactor
            any = true
        }
        return any ? total + clauses[k].bonus : 0
    }

    /// Scores the document at `offset` of the window (`ordinal`) in clause order — the
    /// essential clauses from their arrays, the others looked up — and offers it to the heap;
    /// when `pruning`, first checks that its essential values and the others' bounds, in
    /// clause order, reach the threshold.
    @inline(__always)
    private func score<Collector: ScoredCollector>(_ offset: Int, _ ordinal: Int32, pruning: Bool, _ essential: UnsafeMutableBufferPointer<Bool>,
                                                   _ bounds: UnsafeMutableBufferPointer<Double>, _ heap: inout Collector,
                       _ admit: Admission) {
        let count = clauses.count
        if pruning {
            var most = 0.0
            for k in 0..<count { most += essential[k] ? value(k, offset) : bounds[k] }
            if most < heap.threshold { return }
        }
        var score = 0.0
        for k in 0..<count { score += essential[k] ? value(k, offset) : probe(k, ordinal) }
        if heap.admits(score), let admitted = admit(ordinal, score) { documents.offer(admitted, ordinal, to: &heap) }
    }

    /// Essential clause `k`'s score for the document at `offset`: its units' sum from its
    /// array and, when it matched, its bonus.
    @inline(__always)
    private func value(_ k: Int, _ offset: Int) -> Double {
        let sum = buffers.values[k * window + offset]
        return sum > 0 ? sum + clauses[k].bonus : 0
    }

    /// The sum, in clause order, of the bounds of the clauses that are (or are not) essential.
    @inline(__always)
    private static func sum(_ bounds: UnsafeMutableBufferPointer<Double>, _ essential: UnsafeMutableBufferPointer<Bool>, essential wanted: Bool) -> Double {
        var total = 0.0
        for k in 0..<bounds.count where essential[k] == wanted { total += bounds[k] }
        return total
    }

    private func skipAll(to target: Int32) {
        for i in 0..<cursors.count { cursors[i].skip(to: target) }
    }
}
