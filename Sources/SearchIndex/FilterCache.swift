import BoundedCache
import Items
import SQLite
import SearchModel
import Synchronization

/// What passes each recent ``SearchFilter``, for each segment searched with it, as bits over
/// the segment's ordinals (``FilterRows``): the window search masks a window's candidates
/// with them before it scores any, so a document that fails costs no scoring and does not
/// hold the threshold back. A segment that holds its documents' filter terms gives its bits
/// from a few posting lists (``FilterTerms``); for the others, and for circles, the rows that
/// pass are kept as a bit set over the rowid range.
///
/// An item's row never changes what a filter reads (a changed item is a new row, with a new
/// rowid: `items` counts rowids up, AUTOINCREMENT), so a set stays right for every rowid it
/// covers, and a later search adds only the rows written since; rows deleted since are left
/// to the search's liveness check. A circle's rows come from ``PlaceGrid``. At most ``capacity`` sets are kept (1,000,000 items take
/// 125 KB a set), the least recently used dropped first; one is built by one scan of `items`.
/// Circles are kept apart, at most ``circleCapacity``: a search near a person who moves asks
/// for a new circle nearly every time, and a stream of such one-off sets, cheap to make again
/// from the grid, must not push out the sets that cost a scan (seconds at 10,000,000 items).
final class FilterCache: Sendable {
    static let capacity = 32
    static let circleCapacity = 8
    /// The file's places, which a circle's rows come from.
    private let places: PlaceGrid

    private struct Entry: Sendable {
        var rows: FilterRows
        /// The highest rowid the set has read.
        var covered: Int64
    }

    private let scanned = BoundedCache<SearchFilter, Entry>(capacityEntries: capacity)
    private let circles = BoundedCache<SearchFilter, Entry>(capacityEntries: circleCapacity)

    init(places: PlaceGrid) {
        self.places = places
    }

    /// What passes `filter` in `searched` (the segments a search reads): each segment's bits
    /// from its filter terms (``FilterTerms``) where it holds them and the filter has no
    /// circle; else from the rows that pass, scanned from `items` (or the grid of places) and
    /// kept up to date with what `connection` reads.
    func rows(_ filter: SearchFilter, connection: SQLiteConnection, searching searched: [SegmentReader]) throws -> FilterRows {
        guard filter.near != nil || searched.contains(where: { !$0.file.holdsFilterTerms }) else {
            let entries = cache(for: filter)
            if let cached = entries.value(filter) { return cached.rows }
            let made = FilterRows(rows: nil, segments: FilterRows.Segments(), parts: FilterTerms.parts(of: filter))
            entries.insert(Entry(rows: made, covered: 0), bytes: 0, for: filter)
            return made
        }
        return try scanned(filter, connection: connection)
    }

    /// The rows passing `filter`, up to date with what `connection` reads.
    func scannedRows(_ filter: SearchFilter, connection: SQLiteConnection) throws -> RowSet {
        // Non-nil: ``scanned(_:connection:)`` always reads them.
        try scanned(filter, connection: connection).rows ?? RowSet()
    }

    private func scanned(_ filter: SearchFilter, connection: SQLiteConnection) throws -> FilterRows {
        let key = filter
        let entries = cache(for: filter)
        // A set kept without its rows (every segment held filter terms) has bits to keep.
        let cached = entries.value(key)
        let scannedBefore = cached?.rows.rows != nil
        var rows = try cached?.rows.rows ?? RowSet(base: Self.lowestRowid(connection))
        var segments = cached?.rows.segments ?? FilterRows.Segments()
        var covered = scannedBefore ? cached?.covered ?? 0 : 0
        let parts = filter.near == nil ? FilterTerms.parts(of: filter) : nil
        let highest = try Self.highestRowid(connection)
        if highest < covered {
            // The file was made again from nothing: start over.
            rows = RowSet(base: try Self.lowestRowid(connection))
            segments = FilterRows.Segments()
            covered = 0
        }
        if let cached, scannedBefore, highest == covered { return cached.rows }
        if highest > covered {
            rows.reserve(through: highest)
            if let near = filter.near {
                // The circle from the grid of places; the other parts from their own rows.
                var others = filter
                others.near = nil
                let passing = others.isEmpty ? nil : try scannedRows(others, connection: connection)
                let grid = try places.grid(connection: connection)
                for rowid in grid.rowids(in: near, after: covered, through: highest) where passing?.contains(rowid) ?? true { rows.insert(rowid) }
            } else {
                let condition = filter.condition
                let statement = try connection.statement("SELECT rowid FROM items WHERE rowid > ? AND rowid <= ? AND \(condition.sql) ORDER BY rowid")
                statement.bind([.integer(covered), .integer(highest)] + condition.arguments)
                while try statement.step() { rows.insert(statement.int64(0)) }
                statement.reset()
            }
            covered = highest
        }
        let rowsNow = FilterRows(rows: rows, segments: segments, parts: parts)
        entries.insert(Entry(rows: rowsNow, covered: covered), bytes: 0, for: key)
        return rowsNow
    }

    /// Where the rows of `filter` are kept: with the circles when it has one.
    private func cache(for filter: SearchFilter) -> BoundedCache<SearchFilter, Entry> {
        filter.near == nil ? scanned : circles
    }

    /// Whether the rows of `filter` are kept (marked used, as a search's look-up would).
    func isKept(_ filter: SearchFilter) -> Bool {
        cache(for: filter).value(filter) != nil
    }

    /// The oldest item's rowid: no row below it can appear again (rowids only count up).
    static func lowestRowid(_ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.statement("SELECT coalesce(min(rowid), 0) FROM items")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(0)
    }

    static func highestRowid(_ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.statement("SELECT coalesce(max(rowid), 0) FROM items")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(0)
    }
}

/// One filter's rows: for each segment searched with it, as the segment's ordinals (a
/// segment's documents never change, so its bits are made once; the rows written later are
/// in newer segments) — from the segment's filter terms (``parts``) where it holds them, else
/// from the rowids that pass (``rows``), which the cache reads whenever a segment searched
/// lacks the terms or the filter has a circle.
final class FilterRows: Sendable {
    /// The segments' ordinal bits, by segment id, shared by every version of a filter's rows.
    final class Segments: Sendable {
        let bits = Mutex<[Int64: [UInt64]]>([:])
    }

    let rows: RowSet?
    let segments: Segments
    /// The filter as parts of terms (``FilterTerms/parts(of:)``); nil for a circle.
    let parts: [FilterTerms.Part]?

    init(rows: RowSet?, segments: Segments, parts: [FilterTerms.Part]? = nil) {
        self.rows = rows
        self.segments = segments
        self.parts = parts
    }

    /// Bit `i` set when the segment's document `i` passes; one word past the last, so a
    /// window may read a word beyond its own.
    func ordinals(_ segment: SegmentReader) -> [UInt64] {
        if let known = segments.bits.withLock({ $0[segment.info.id] }) { return known }
        let words: [UInt64]
        if let parts, segment.file.holdsFilterTerms {
            words = Self.bits(parts, in: segment)
        } else if let rows {
            words = Self.bits(rows, rowids: segment.rowids)
        } else {
            // The cache reads the rows whenever a segment searched lacks the terms: not reached.
            return [UInt64](repeating: 0, count: segment.documentCount / 64 + 2)
        }
        segments.bits.withLock { $0[segment.info.id] = words }
        return words
    }

    /// The documents of `segment` that pass every part: those holding one of a part's
    /// terms, or a term that starts with one of its prefixes.
    static func bits(_ parts: [FilterTerms.Part], in segment: SegmentReader) -> [UInt64] {
        let count = segment.documentCount / 64 + 2
        var result: [UInt64]?
        for part in parts {
            var bits = [UInt64](repeating: 0, count: count)
            var terms: [SegmentReader.Term] = part.exact.compactMap { term in term.withUnsafeBytes { segment.term($0) } }
            for prefix in part.prefixes { segment.terms(startingWith: prefix) { terms.append($0) } }
            for term in terms {
                TermPostings(file: segment.file, range: term.postings, blocks: term.blocks, documents: term.documents)
                    .mark(in: &bits, documentLimit: segment.documentCount)
            }
            if var passing = result {
                for index in passing.indices { passing[index] &= bits[index] }
                result = passing
            } else {
                result = bits
            }
        }
        return result ?? [UInt64](repeating: ~0, count: count)
    }

    /// Forgets the bits of segments no longer searched (merged away), so that a filter kept
    /// for long holds bits for the index's current segments only.
    func keep(segments current: [Int64]) {
        segments.bits.withLock { bits in
            guard bits.keys.contains(where: { !current.contains($0) }) else { return }
            bits = bits.filter { current.contains($0.key) }
        }
    }

    /// How many segments' bits are held.
    var segmentsHeld: Int { segments.bits.withLock { $0.count } }

    /// Bit `i` set when the segment's document `i` (`rowids[i]`) is among `rows`; one word
    /// past the last.
    ///
    /// A segment's rowids ascend with its ordinals, so a filter that few rows pass (a circle
    /// around a place, which a search near a moving person asks anew each time) looks each of
    /// its rows up in them, not each of the segment's documents in its rows.
    static func bits(_ rows: RowSet, rowids: UnsafeBufferPointer<Int64>) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: rowids.count / 64 + 2)
        func set(_ ordinal: Int) { words[ordinal >> 6] |= UInt64(1) << UInt64(ordinal & 63) }
        if let few = rows.sparse, let first = rowids.first, let last = rowids.last, few.count * 16 < rowids.count {
            var index = few.firstIndex(atLeast: first)
            var low = 0
            while index < few.count, few[index] <= last {
                let ordinal = rowids.firstIndex(atLeast: few[index], from: low)
                if ordinal < rowids.count, rowids[ordinal] == few[index] { set(ordinal) }
                low = ordinal
                index += 1
            }
        } else {
            for (ordinal, rowid) in rowids.enumerated() where rows.contains(rowid) { set(ordinal) }
        }
        return words
    }
}

/// A set of rowids as bits, one per rowid from `base` (the oldest item's when the set was
/// made): its memory is a bit per rowid written since that item, which a long-lived index
/// whose oldest item stays keeps growing (rewritten items take new rowids).
struct RowSet: Sendable {
    private let base: Int64
    private var words: [UInt64] = []
    private(set) var count = 0
    /// The rowids in ascending order while there are at most ``sparseLimit`` of them.
    private(set) var sparse: [Int64]? = []
    static let sparseLimit = 65_536

    init(base: Int64 = 0) {
        self.base = max(0, base)
    }

    mutating func reserve(through rowid: Int64) {
        guard rowid >= base else { return }
        let needed = Int((rowid - base) >> 6) + 1
        if words.count < needed { words += Array(repeating: 0, count: needed - words.count) }
    }

    mutating func insert(_ rowid: Int64) {
        guard rowid >= base else { return }
        reserve(through: rowid)
        let offset = rowid - base
        let bit = UInt64(1) << UInt64(offset & 63)
        if words[Int(offset >> 6)] & bit == 0 {
            words[Int(offset >> 6)] |= bit
            count += 1
            if count > Self.sparseLimit {
                sparse = nil
            } else if var list = sparse, let last = list.last, last > rowid {
                // Rows come in rowid order; one out of it is put in its place.
                sparse = nil
                list.insert(rowid, at: list.firstIndex { $0 > rowid } ?? list.count)
                sparse = list
            } else {
                sparse?.append(rowid)
            }
        }
    }

    mutating func remove(_ rowid: Int64) {
        guard contains(rowid) else { return }
        let offset = rowid - base
        words[Int(offset >> 6)] &= ~(UInt64(1) << UInt64(offset & 63))
        count -= 1
        if let list = sparse {
            let index = list.firstIndex(atLeast: rowid)
            if index < list.count, list[index] == rowid { sparse?.remove(at: index) }
        }
    }

    @inline(__always)
    func contains(_ rowid: Int64) -> Bool {
        guard rowid >= base else { return false }
        let index = Int((rowid - base) >> 6)
        return index < words.count && words[index] & (UInt64(1) << UInt64((rowid - base) & 63)) != 0
    }
}
