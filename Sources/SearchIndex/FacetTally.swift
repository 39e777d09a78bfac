import SQLite
import SearchModel

/// Counts of each facet asked for over every match, a segment at a time (``collect(_:matches:)``): a
/// value most of the segment's documents share is counted by its bits (the matches' bits and
/// the value's, ANDed and counted a word at a time, Meilisearch's way), every other value a
/// match at a time from its document's value number (``SegmentFacets``).
struct FacetTally: MatchCollector {
    private let facets: [Facet]
    private let names: FacetNames
    /// Per facet, each segment's values, by segment id.
    private let values: [[Int64: SegmentFacets.Values]]
    /// Per facet, the count of each value number; a dictionary where a facet has very many
    /// values (a count per value would cost more to clear than the matches to count).
    private var dense: [[UInt32]]
    private var sparse: [[UInt32: Int]]
    private(set) var matches = 0
    /// Value numbers past which a facet's counts are kept in a dictionary.
    static let denseValues = 1 << 16

    /// A tally of `facets` over the matches in `segments`, their values made first.
    init(_ facets: Set<Facet>, segments: [SegmentReader], values segmentFacets: SegmentFacets, connection: SQLiteConnection) throws {
        self.facets = facets.sorted { $0.rawValue < $1.rawValue }
        names = segmentFacets.names
        values = try segmentFacets.values(self.facets, segments: segments, connection: connection)
        let names = self.names
        dense = self.facets.map { facet in
            let count = names.names(facet).count
            return count <= Self.denseValues ? [UInt32](repeating: 0, count: count) : []
        }
        sparse = self.facets.map { _ in [:] }
    }

    /// Counts the documents of `segment` whose ordinals are set in `bits`.
    mutating func collect(_ segment: SegmentReader, matches bits: UnsafeBufferPointer<UInt64>) {
        matches += bits.reduce(0) { $0 + $1.nonzeroBitCount }
        for index in facets.indices {
            guard let values = values[index][segment.info.id] else { continue }
            for (number, valueBits) in values.frequent {
                let count = valueBits.withUnsafeBufferPointer { valueBits in
                    var count = 0
                    for word in 0..<min(bits.count, valueBits.count) { count &+= (bits[word] & valueBits[word]).nonzeroBitCount }
                    return count
                }
                add(count, to: number, facet: index)
            }
            // Every other value a match at a time, into the facet's counts taken out of
            // `self` for the loop (no copy-on-write check per match).
            var counts = [UInt32]()
            swap(&counts, &dense[index])
            var spilled: [UInt32: Int] = [:]
            values.others.withUnsafeBufferPointer { others in
                values.numbers.withUnsafeBufferPointer { numbers in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for word in 0..<min(bits.count, others.count) {
                            var remaining = bits[word] & others[word]
                            while remaining != 0 {
                                let ordinal = word << 6 | remaining.trailingZeroBitCount
                                remaining &= remaining &- 1
                                guard ordinal < numbers.count else { break }
                                let number = Int(numbers[ordinal])
                                if number < counts.count { counts[number] &+= 1 } else { spilled[UInt32(number), default: 0] += 1 }
                            }
                        }
                    }
                }
            }
            swap(&counts, &dense[index])
            for (number, count) in spilled { add(count, to: number, facet: index) }
        }
    }

    @inline(__always)
    private mutating func add(_ count: Int, to number: UInt32, facet index: Int) {
        guard number != 0, count > 0 else { return }
        if dense[index].isEmpty {
            sparse[index][number, default: 0] += count
        } else if Int(number) < dense[index].count {
            dense[index][Int(number)] &+= UInt32(truncatingIfNeeded: count)
        }
    }

    /// The counts, each facet's most frequent values first.
    func counts(exact: Bool) -> FacetCounts {
        var result = FacetCounts(exact: exact)
        for (index, facet) in facets.enumerated() {
            let names = names.names(facet)
            let values: [(value: String, count: Int)] = dense[index].isEmpty
                ? sparse[index].compactMap { Int($0.key) < names.count ? (names[Int($0.key)], $0.value) : nil }
                : dense[index].enumerated().compactMap { number, count in count == 0 || number >= names.count ? nil : (names[number], Int(count)) }
            result.counts[facet] = FacetCounts.best(values)
        }
        return result
    }
}
