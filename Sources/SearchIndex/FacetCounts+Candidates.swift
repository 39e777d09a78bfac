import SQLite
import SearchModel

extension FacetCounts {
    /// Counts `facets` over the items of `rowids` (the search's candidates): each rowid's
    /// document found in its segment (a segment's rowids ascend), its value read from the
    /// segment's values (``SegmentFacets``), made only for the segments that hold a candidate.
    static func count(_ facets: Set<Facet>, rowids: [Int64], exact: Bool, segments: [SegmentReader], values: SegmentFacets,
                      connection: SQLiteConnection) throws -> FacetCounts {
        var bySegment = [[Int]](repeating: [], count: segments.count)
        for rowid in rowids {
            guard let (segment, ordinal) = locate(rowid, in: segments) else { continue }
            bySegment[segment].append(ordinal)
        }
        let holding = segments.indices.filter { !bySegment[$0].isEmpty }
        let ordered = facets.sorted { $0.rawValue < $1.rawValue }
        let made = try values.values(ordered, segments: holding.map { segments[$0] }, connection: connection)
        var result = FacetCounts(exact: exact)
        for (facet, bySegmentValues) in zip(ordered, made) {
            var tally: [UInt32: Int] = [:]
            for index in holding {
                let numbers = bySegmentValues[segments[index].info.id]?.numbers ?? []
                for ordinal in bySegment[index] where ordinal < numbers.count && numbers[ordinal] != 0 { tally[numbers[ordinal], default: 0] += 1 }
            }
            let names = values.names.names(facet)
            result.counts[facet] = Self.best(tally.compactMap { number, count in Int(number) < names.count ? (names[Int(number)], count) : nil })
        }
        return result
    }

    /// The segment (its place in `segments`) and ordinal of `rowid`'s document; nil when no
    /// segment holds it.
    static func locate(_ rowid: Int64, in segments: [SegmentReader]) -> (segment: Int, ordinal: Int)? {
        for (index, segment) in segments.enumerated() {
            let rowids = segment.rowids
            guard let first = rowids.first, let last = rowids.last, first <= rowid, rowid <= last else { continue }
            let ordinal = rowids.firstIndex(atLeast: rowid)
            if ordinal < rowids.count, rowids[ordinal] == rowid { return (index, ordinal) }
        }
        return nil
    }
}
