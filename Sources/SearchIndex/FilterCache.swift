import SQLite
import Synchronization

/// The rowids that pass each recent ``SearchFilter``, as bit sets over the rowid range, so a
/// filtered search checks a candidate with one bit rather than a row: the pruned search
/// skips a document that fails before it competes for the top k.
///
/// An item's row never changes what a filter reads (a changed item is a new row, with a new
/// rowid: `items` counts rowids up, AUTOINCREMENT), so a set stays right for every rowid it
/// covers, and a later search adds only the rows written since; rows deleted since are left
/// to the search's liveness check. At most ``capacity`` sets are kept (1,000,000 items take
/// 125 KB a set), the least recently used dropped first; one is built by one scan of `items`.
final class FilterCache: Sendable {
    static let shared = FilterCache()
    static let capacity = 32

    private struct Entry {
        var rows: RowSet
        /// The highest rowid the set has read.
        var covered: Int64
        var used: UInt64
    }

    private struct Key: Hashable {
        var file: String
        var filter: SearchFilter
    }

    private let entries = Mutex<(map: [Key: Entry], clock: UInt64)>(([:], 0))

    /// The rows of `file` passing `filter`, up to date with what `connection` reads.
    func rows(_ filter: SearchFilter, file: String, connection: SQLiteConnection) throws -> RowSet {
        let key = Key(file: file, filter: filter)
        let cached = entries.withLock { $0.map[key] }
        var rows = cached?.rows ?? RowSet()
        var covered = cached?.covered ?? 0
        let highest = try Self.highestRowid(connection)
        if highest < covered {
            // The file was made again from nothing: start over.
            rows = RowSet()
            covered = 0
        }
        if highest > covered {
            let condition = filter.condition
            let statement = try connection.statement("SELECT rowid FROM items WHERE rowid > ? AND rowid <= ? AND \(condition.sql)")
            statement.bind(1, covered)
            statement.bind(2, highest)
            for (index, argument) in condition.arguments.enumerated() { statement.bind(Int32(index + 3), argument) }
            rows.reserve(through: highest)
            while try statement.step() { rows.insert(statement.int64(0)) }
            statement.reset()
            covered = highest
        }
        let result = rows
        entries.withLock { state in
            state.clock += 1
            state.map[key] = Entry(rows: result, covered: covered, used: state.clock)
            if state.map.count > Self.capacity, let oldest = state.map.min(by: { $0.value.used < $1.value.used })?.key {
                state.map[oldest] = nil
            }
        }
        return result
    }

    private static func highestRowid(_ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.statement("SELECT coalesce(max(rowid), 0) FROM items")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int64(0)
    }
}

/// A set of rowids as bits, one per rowid from 0.
struct RowSet: Sendable {
    private var words: [UInt64] = []
    private(set) var count = 0

    mutating func reserve(through rowid: Int64) {
        let needed = Int(rowid >> 6) + 1
        if words.count < needed { words += Array(repeating: 0, count: needed - words.count) }
    }

    mutating func insert(_ rowid: Int64) {
        guard rowid >= 0 else { return }
        reserve(through: rowid)
        let bit = UInt64(1) << UInt64(rowid & 63)
        if words[Int(rowid >> 6)] & bit == 0 {
            words[Int(rowid >> 6)] |= bit
            count += 1
        }
    }

    @inline(__always)
    func contains(_ rowid: Int64) -> Bool {
        guard rowid >= 0 else { return false }
        let index = Int(rowid >> 6)
        return index < words.count && words[index] & (UInt64(1) << UInt64(rowid & 63)) != 0
    }
}
