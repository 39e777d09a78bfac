/// What one segment's run keeps per clause, in buffers freed when it ends.
struct RunState {
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
