import Testing
import TextUtilities

@testable import SearchIndex

/// The heap of the k best (``TopK``), which orders by score alone and settles ties on the
/// threshold by key only when they must be: whatever the order and the ties, it keeps
/// exactly the k first in the total order (score, key, rowid).
@Suite struct TopKTests {
    static func best(_ offered: [TopK.Entry], _ k: Int) -> [TopK.Entry] {
        Array(offered.sorted { $0.precedes($1) }.prefix(k))
    }

    @Test func keepsTheFirstKOfTheTotalOrderThroughManyTies() {
        var generator = SplitMix64(seed: 58)
        for round in 0..<400 {
            let capacity = 1 + Int(generator.next() % 40)
            // Few distinct scores: most offers tie the threshold, many times the tie limit.
            let scores = 1 + Int(generator.next() % 6)
            let count = Int(generator.next() % 2_000)
            let offered = (0..<count).map { n in
                TopK.Entry(score: Double(generator.next() % UInt64(scores)), key: generator.next() % 50, rowid: Int64(n))
            }
            var heap = TopK(capacity: capacity)
            for entry in offered { heap.collect(entry.score, key: entry.key, rowid: entry.rowid) }
            let kept = heap.sorted
            let expected = Self.best(offered, capacity)
            #expect(kept.map(\.rowid) == expected.map(\.rowid), "round \(round): \(capacity) of \(count), \(scores) scores")
            #expect(heap.threshold == (count < capacity ? -.infinity : expected.last!.score), "round \(round)")
        }
    }

    @Test func theThresholdIsTheKthBestScore() {
        var heap = TopK(capacity: 3)
        for (score, rowid) in [(1.0, 1), (5.0, 2), (3.0, 3)] { heap.collect(score, key: 0, rowid: Int64(rowid)) }
        #expect(heap.threshold == 1)
        heap.collect(1, key: 0, rowid: 0)  // ties the threshold, ranks first on its rowid
        #expect(heap.threshold == 1)
        #expect(heap.sorted.map(\.rowid) == [2, 3, 0])
        heap.collect(4, key: 9, rowid: 9)  // both ties of 1 fall out
        #expect(heap.threshold == 3)
        #expect(heap.sorted.map(\.rowid) == [2, 9, 3])
    }
}
