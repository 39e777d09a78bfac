import SearchModel
import Synchronization

/// Each facet's values over one segment's ordinals, made once from the index's column
/// (``FacetColumns``): a segment's rows never change, nor a row's content type or site (a
/// changed item is a new row). The values that at least 1/64 of the segment's documents
/// share keep a bit per ordinal (at most 64 of them: 8 bytes a document at most), counted a
/// word at a time; the others a value number per ordinal (4 bytes a document). Kept for one
/// index file's segments (its ``IndexReader``); a merged-away segment's go with the next
/// faceted search.
final class SegmentFacets: Sendable {

    struct Values: Sendable {
        /// A frequent value's number and its ordinals' bits.
        var frequent: [(number: UInt32, bits: [UInt64])] = []
        /// The ordinals of every other value, as bits, and each ordinal's value number.
        var others: [UInt64] = []
        var numbers: [UInt32] = []
    }

    private struct Key: Hashable {
        var facet: Facet
        var segment: Int64
    }

    private let entries = Mutex<[Key: Values]>([:])

    /// The values of `facet` over `segment`'s ordinals, read from `column` (which covers every
    /// row of the segment: it covers the index's highest rowid when read).
    func values(_ facet: Facet, column: FacetColumns.Column, segment: SegmentReader) -> Values {
        let key = Key(facet: facet, segment: segment.info.id)
        if let known = entries.withLock({ $0[key] }) { return known }
        let rowids = segment.rowids
        var values = Values()
        values.numbers = rowids.map { column.value($0) }
        var counts: [UInt32: Int] = [:]
        for number in values.numbers where number != 0 { counts[number, default: 0] += 1 }
        let least = max(64, rowids.count / 64)
        let frequent = Set(counts.filter { $0.value >= least }.sorted { $0.value > $1.value }.prefix(64).map(\.key))
        let words = rowids.count / 64 + 1
        var bits: [UInt32: [UInt64]] = Dictionary(uniqueKeysWithValues: frequent.map { ($0, [UInt64](repeating: 0, count: words)) })
        values.others = [UInt64](repeating: 0, count: words)
        for (ordinal, number) in values.numbers.enumerated() where number != 0 {
            let bit = UInt64(1) << UInt64(ordinal & 63)
            if frequent.contains(number) { bits[number]![ordinal >> 6] |= bit } else { values.others[ordinal >> 6] |= bit }
        }
        values.frequent = bits.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let made = values
        entries.withLock { $0[key] = made }
        return made
    }

    /// Forgets the segments not in `current` (merged away).
    func keep(segments current: Set<Int64>) {
        entries.withLock { entries in
            guard entries.keys.contains(where: { !current.contains($0.segment) }) else { return }
            entries = entries.filter { current.contains($0.key.segment) }
        }
    }
}
