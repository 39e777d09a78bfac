import Items
@testable import SearchIndex
import Testing

/// A filter's per-segment bits: ordinals that pass, and only for the segments still searched.
@Suite struct FilterRowsTests {
    @Test func bitsFollowTheSegmentsSearched() {
        var rows = RowSet(base: 100)
        for rowid in [100, 103, 164, 200] as [Int64] { rows.insert(rowid) }
        #expect(!rows.contains(99) && rows.contains(100) && !rows.contains(101) && rows.contains(164) && rows.count == 4)
        let first = ([100, 101, 102, 103] as [Int64]).withUnsafeBufferPointer { FilterRows.bits(rows, rowids: $0) }
        #expect(first[0] == 0b1001)
        let later = Array(Int64(150)...220)
        let second = later.withUnsafeBufferPointer { FilterRows.bits(rows, rowids: $0) }
        #expect(second[0] & (1 << 14) != 0 && second[0] & (1 << 13) == 0, "rowid 164 is ordinal 14")
    }
}
