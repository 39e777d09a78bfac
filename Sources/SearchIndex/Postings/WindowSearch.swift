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

    private let cursors: UnsafeMutableBufferPointer<PostingCursor>
    // The query's parts in buffers of their own: read for every window and document, without
    // array bounds and uniqueness checks.
    private let units: UnsafeMutableBufferPointer<Unit>
    private let clauses: UnsafeMutableBufferPointer<Clause>
    private let documents: SegmentDocuments
    private let lengths: UnsafeBufferPointer<UInt16>
    private let norm: BM25.Norm
    private let boundFactor: Double
    private let buffers: WindowBuffers
    private let window: Int
    /// The segment's documents a filter lets through, a bit per ordinal (``FilterRows``);
    /// nil lets every document through.
    private let allowed: UnsafeBufferPointer<UInt64>?

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

    /// Offers every document of the segment that may belong to the top k to `heap`.
    func run(heap: inout TopK, exhaustive: Bool, requireAll: Bool, admit: Admission) {
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
    private static func contains(_ allowed: UnsafeBufferPointer<UInt64>, _ ordinal: Int) -> Bool {
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
    private func score(_ offset: Int, _ ordinal: Int32, pruning: Bool, _ essential: UnsafeMutableBufferPointer<Bool>,
                       _ bounds: UnsafeMutableBufferPointer<Double>, _ heap: inout TopK,
                       _ admit: Admission) {
        let count = clauses.count
        if pruning {
            var most = 0.0
            for k in 0..<count { most += essential[k] ? value(k, offset) : bounds[k] }
            if most < heap.threshold { return }
        }
        var score = 0.0
        for k in 0..<count { score += essential[k] ? value(k, offset) : probe(k, ordinal) }
        if heap.admits(score), let admitted = admit(ordinal, score) { documents.insert(admitted, ordinal, into: &heap) }
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

    /// The most clause `k` can add to a document from `lower` up to `upper`, summed in the
    /// order its score is.
    private func clauseBound(_ k: Int, _ lower: Int32, _ upper: Int32) -> Double {
        var total = 0.0
        var any = false
        for u in clauses[k].units {
            let unit = units[u]
            var saturation = Float.infinity
            for c in unit.firstCursor..<(unit.firstCursor + unit.cursorCount) {
                saturation = min(saturation, cursors[c].bound(from: lower, below: upper))
            }
            guard saturation > 0, saturation.isFinite else { continue }
            total += unit.weight * Double(saturation) * boundFactor
            any = true
        }
        return any ? total + clauses[k].bonus : 0
    }

    /// Sums clause `k`'s units' scores from `lower` up to `upper` into its array (its bonus is
    /// added when a document's score is read, ``value(_:_:)``), marking the documents it
    /// matched.
    private func accumulate(_ k: Int, _ lower: Int32, _ upper: Int32) {
        let values = buffers.values + k * window
        let matched = buffers.matched + k * (window / 64)
        let lengths = self.lengths
        let norm = self.norm
        for u in clauses[k].units {
            let unit = units[u]
            let weight = unit.weight
            if unit.cursorCount == 1 {
                while let run = cursors[unit.firstCursor].run(below: upper) {
                    for i in 0..<run.count {
                        let ordinal = Int(run.ordinals[i])
                        let offset = ordinal - Int(lower)
                        values[offset] += weight * norm.saturation(Double(run.frequencies[i]), length: Double(lengths[ordinal]))
                        matched[offset >> 6] |= 1 << UInt64(offset & 63)
                    }
                }
                continue
            }
            // A phrase: its first token's postings in the window, kept where every other token
            // has a posting too, with the least frequency.
            let ordinals = buffers.phraseOrdinals
            let frequencies = buffers.phraseFrequencies
            var kept = 0
            while let run = cursors[unit.firstCursor].run(below: upper) {
                for i in 0..<run.count {
                    ordinals[kept] = run.ordinals[i]
                    frequencies[kept] = run.frequencies[i]
                    kept += 1
                }
            }
            for c in (unit.firstCursor + 1)..<(unit.firstCursor + unit.cursorCount) {
                var read = 0
                var written = 0
                while read < kept, let run = cursors[c].run(below: upper) {
                    var i = 0
                    while read < kept, i < run.count {
                        let a = ordinals[read], b = run.ordinals[i]
                        if a < b {
                            read += 1
                        } else if b < a {
                            i += 1
                        } else {
                            ordinals[written] = a
                            frequencies[written] = min(frequencies[read], run.frequencies[i])
                            written += 1
                            read += 1
                            i += 1
                        }
                    }
                }
                kept = written
            }
            for i in 0..<kept {
                let ordinal = Int(ordinals[i])
                let offset = ordinal - Int(lower)
                values[offset] += weight * norm.saturation(Double(frequencies[i]), length: Double(lengths[ordinal]))
                matched[offset >> 6] |= 1 << UInt64(offset & 63)
            }
        }
    }

    /// Clause `k`'s score for the document at `ordinal`, its postings looked up.
    private func probe(_ k: Int, _ ordinal: Int32) -> Double {
        var score = 0.0
        var any = false
        let length = Double(lengths[Int(ordinal)])
        for u in clauses[k].units {
            let unit = units[u]
            var lowest = UInt32.max
            for c in unit.firstCursor..<(unit.firstCursor + unit.cursorCount) {
                cursors[c].advance(to: ordinal)
                guard cursors[c].doc == ordinal else {
                    lowest = 0
                    break
                }
                lowest = min(lowest, cursors[c].frequency)
            }
            guard lowest > 0 else { continue }
            score += unit.weight * norm.saturation(Double(lowest), length: length)
            any = true
        }
        return any ? score + clauses[k].bonus : 0
    }

    /// Zeroes what clause `k` wrote in its array: the whole array at once when it matched
    /// many documents.
    private func clear(_ k: Int) {
        let values = buffers.values + k * window
        let matched = buffers.matched + k * (window / 64)
        var occupied = 0
        for w in 0..<(window / 64) where matched[w] != 0 { occupied += 1 }
        if occupied == window / 64 {
            values.update(repeating: 0, count: window)
            matched.update(repeating: 0, count: window / 64)
            return
        }
        for w in 0..<(window / 64) where matched[w] != 0 {
            var bits = matched[w]
            while bits != 0 {
                values[w * 64 + bits.trailingZeroBitCount] = 0
                bits &= bits - 1
            }
            matched[w] = 0
        }
    }
}

/// What one segment's run keeps per clause, in buffers freed when it ends.
private struct RunState {
    let bounds: UnsafeMutableBufferPointer<Double>
    let maxima: UnsafeMutableBufferPointer<Double>
    let essential: UnsafeMutableBufferPointer<Bool>
    let leading: UnsafeMutableBufferPointer<Bool>
    let order: UnsafeMutableBufferPointer<Int>
    let essentials: UnsafeMutableBufferPointer<Int>

    init(count: Int) {
        bounds = .allocate(capacity: count)
        bounds.initialize(repeating: 0)
        maxima = .allocate(capacity: count)
        maxima.initialize(repeating: 0)
        essential = .allocate(capacity: count)
        essential.initialize(repeating: true)
        leading = .allocate(capacity: count)
        leading.initialize(repeating: true)
        order = .allocate(capacity: count)
        for k in 0..<count { (order.baseAddress! + k).initialize(to: k) }
        essentials = .allocate(capacity: count)
        essentials.initialize(repeating: 0)
    }

    func deallocate() {
        bounds.deallocate()
        maxima.deallocate()
        essential.deallocate()
        leading.deallocate()
        order.deallocate()
        essentials.deallocate()
    }
}

/// The arrays one search scores its windows into, reused from segment to segment: a value
/// per clause and document of the window, a bit per clause and document, and a bit per
/// candidate. Zero between windows (each window clears what it wrote).
final class WindowBuffers {
    private(set) var values: UnsafeMutablePointer<Double>
    private(set) var matched: UnsafeMutablePointer<UInt64>
    private(set) var candidates: UnsafeMutablePointer<UInt64>
    /// The offsets of a window that passed the first check.
    let passing: UnsafeMutablePointer<Int32>
    /// The essential clauses' sums over a window, for the first check.
    let sums: UnsafeMutablePointer<Double>
    /// A phrase's postings in the window while its tokens' are intersected.
    let phraseOrdinals: UnsafeMutablePointer<Int32>
    let phraseFrequencies: UnsafeMutablePointer<UInt32>
    private var capacity = 0

    init() {
        values = .allocate(capacity: 1)
        matched = .allocate(capacity: 1)
        candidates = .allocate(capacity: WindowSearch.windowSize / 64)
        candidates.initialize(repeating: 0, count: WindowSearch.windowSize / 64)
        passing = .allocate(capacity: WindowSearch.windowSize)
        sums = .allocate(capacity: WindowSearch.windowSize)
        phraseOrdinals = .allocate(capacity: WindowSearch.windowSize)
        phraseFrequencies = .allocate(capacity: WindowSearch.windowSize)
    }

    deinit {
        values.deallocate()
        matched.deallocate()
        candidates.deallocate()
        passing.deallocate()
        sums.deallocate()
        phraseOrdinals.deallocate()
        phraseFrequencies.deallocate()
    }

    /// Room for `clauses` clauses of a window of `window` documents (a multiple of 64).
    func reserve(clauses: Int, window: Int) {
        // Sized for the largest window, so that the layout is the same for every segment.
        let needed = clauses * WindowSearch.windowSize
        guard needed > capacity else { return }
        values.deallocate()
        matched.deallocate()
        values = .allocate(capacity: needed)
        values.initialize(repeating: 0, count: needed)
        matched = .allocate(capacity: needed / 64)
        matched.initialize(repeating: 0, count: needed / 64)
        capacity = needed
    }
}
