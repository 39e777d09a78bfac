import Items
import SearchModel
import SQLite
import Synchronization

extension Facet {
    /// The facet's column of `items`.
    var column: String {
        switch self {
        case .contentType: "content_type"
        case .domain: "domain"
        }
    }
}

extension FacetCounts {
    /// Counts `facets` over the items of `rowids` (the search's candidates), from each
    /// facet's column of values held in memory (``FacetColumns``).
    static func count(_ facets: Set<Facet>, rowids: [Int64], exact: Bool, columns: FacetColumns, connection: SQLiteConnection) throws -> FacetCounts {
        var result = FacetCounts(exact: exact)
        for facet in facets {
            let column = try columns.column(facet, connection: connection)
            var tally: [UInt32: Int] = [:]
            for rowid in rowids {
                let id = column.value(rowid)
                if id != 0 { tally[id, default: 0] += 1 }
            }
            result.counts[facet] = Self.best(tally.map { (column.names[Int($0.key)], $0.value) })
        }
        return result
    }
}

/// Each facet's value for every row of an index file, in memory: a number per rowid naming
/// one of the values seen (`0`: none), built by one scan of `items` and extended by the rows
/// written since — a row's content type and site never change (a changed item is a new row).
/// 4 bytes a rowid from the oldest item's (1,000,000 items written once take 4 MB a facet).
final class FacetColumns: Sendable {

    struct Column: Sendable {
        /// Value names by number; `names[0]` stands for none.
        var names: [String] = [""]
        var numbers: [String: UInt32] = [:]
        /// The value of rowid `base + i` at `ids[i]`.
        var base: Int64 = 0
        var ids: [UInt32] = []
        var covered: Int64 = 0

        @inline(__always)
        func value(_ rowid: Int64) -> UInt32 {
            let offset = rowid - base
            return offset >= 0 && offset < ids.count ? ids[Int(offset)] : 0
        }
    }

    /// At most this many values a facet keeps names for; rows of further values count as none.
    static let maximumValues = 1 << 20

    private let columns = Mutex<[Facet: Column]>([:])

    /// Whether the rows below `lowest` are enough of a column of `count` rows from `base` to
    /// be cut off.
    static func shouldRebase(base: Int64, lowest: Int64, count: Int) -> Bool {
        lowest > base && lowest - base <= Int64(count) && (lowest - base) * 4 >= Int64(count)
    }

    func column(_ facet: Facet, connection: SQLiteConnection) throws -> Column {
        let key = facet
        var column = columns.withLock { $0[key] } ?? Column()
        let highest = try FilterCache.highestRowid(connection)
        if highest < column.covered { column = Column() }
        guard highest > column.covered else { return column }
        if column.ids.isEmpty {
            column.base = try FilterCache.lowestRowid(connection)
            column.covered = max(column.covered, column.base - 1)
        } else {
            // Rows below the oldest item are gone for good (rowids only count up): once they
            // are a quarter of the column, they are cut off, so that a column follows the
            // items alive, not every row ever written.
            let lowest = try FilterCache.lowestRowid(connection)
            if Self.shouldRebase(base: column.base, lowest: lowest, count: column.ids.count) {
                column.ids.removeFirst(Int(lowest - column.base))
                column.base = lowest
            }
        }
        let statement = try connection.statement(
            "SELECT rowid, \(facet.column) FROM items WHERE rowid > ? AND rowid <= ? AND \(facet.column) IS NOT NULL")
        statement.bind(1, column.covered)
        statement.bind(2, highest)
        let needed = Int(highest - column.base) + 1
        if column.ids.count < needed { column.ids += Array(repeating: 0, count: needed - column.ids.count) }
        while try statement.step() {
            guard let name = statement.string(1) else { continue }
            var number = column.numbers[name]
            if number == nil, column.names.count < Self.maximumValues {
                number = UInt32(column.names.count)
                column.names.append(name)
                column.numbers[name] = number
            }
            let offset = statement.int64(0) - column.base
            if let number, offset >= 0, offset < column.ids.count { column.ids[Int(offset)] = number }
        }
        statement.reset()
        column.covered = highest
        let result = column
        columns.withLock { columns in
            // A reader on an older snapshot of the file does not replace a newer column.
            if (columns[key]?.covered ?? .min) <= result.covered { columns[key] = result }
        }
        return result
    }
}
