import Glibc
import Items
import SQLite
import Synchronization

/// The places of an index file's items in memory, by cells of ``cellDegrees`` a side: a
/// circle (``GeoCircle``) is answered from the cells its boxes cover, each place in them
/// checked exactly, without reading `items` — so a search near a person who moves (a new
/// circle every time) costs a few cells, not a scan. Built by one read of the placed items
/// (the partial index `items_placed`, in rowid order in files made since issue 58) and
/// extended by the rows written since (one range of that index); rows deleted since are
/// left to the search's liveness check.
///
/// Memory: 32 bytes a placed item (its rowid, place and the cosine of its latitude) and a
/// small array per occupied cell (32 MB for 1,000,000 placed items), for one index file (its
/// ``IndexReader``).
final class PlaceGrid: Sendable {
    /// 0.1°: 11 km of latitude, so a 10 km circle covers a dozen cells.
    static let cellDegrees = 0.1

    struct Entry: Sendable {
        var rowid: Int64
        var point: GeoPoint
        /// The cosine of the latitude, which every distance to the place needs.
        var cosine: Double

        init(rowid: Int64, latitude: Double, longitude: Double) {
            self.rowid = rowid
            point = GeoPoint(latitude: latitude, longitude: longitude)
            cosine = cos(latitude * GeoPoint.radians)
        }
    }

    /// A place found within a circle, with its distance from the center (km).
    struct Found: Sendable {
        var rowid: Int64
        var distance: Double
    }

    struct Grid: Sendable {
        var cells: [Int64: [Entry]] = [:]
        var covered: Int64 = 0
        var count = 0
        /// Entries added since the placed items were last counted.
        var addedSinceCount = 0

        static func cell(_ latitude: Double, _ longitude: Double) -> (Int64, Int64) {
            (Int64((latitude / PlaceGrid.cellDegrees).rounded(.down)), Int64((longitude / PlaceGrid.cellDegrees).rounded(.down)))
        }

        static func key(_ row: Int64, _ column: Int64) -> Int64 { row << 32 | (column & 0xFFFF_FFFF) }

        /// Files the index's own contract wrote hold valid places only; one that does not (a
        /// damaged file) is left out rather than trusted with a cell.
        mutating func add(_ entry: Entry) {
            guard entry.point.isValid else { return }
            let (row, column) = Self.cell(entry.point.latitude, entry.point.longitude)
            cells[Self.key(row, column), default: []].append(entry)
            count += 1
            addedSinceCount += 1
        }

        /// The rowids in (`after`, `through`] placed within `circle`, ascending.
        func rowids(in circle: GeoCircle, after: Int64, through: Int64) -> [Int64] {
            places(in: circle, after: after, through: through).map(\.rowid).sorted()
        }

        /// The places in (`after`, `through`] within `circle`, each with its distance, in no
        /// particular order; at most `limit` + 1 of them (one more says there are more).
        func places(in circle: GeoCircle, after: Int64 = 0, through: Int64 = .max, limit: Int = .max) -> [Found] {
            var found: [Found] = []
            let center = circle.center
            let cosine = cos(center.latitude * GeoPoint.radians)
            // Within the radius exactly when the haversine is at most the radius's.
            let threshold = pow(sin(min(Double.pi / 2, circle.radius / GeoPoint.earthRadius / 2)), 2)
            func visit(_ entries: [Entry]) {
                for entry in entries where entry.rowid > after && entry.rowid <= through && found.count <= limit {
                    let h = GeoPoint.haversine(center, cosine: cosine, entry.point, cosine: entry.cosine)
                    if h <= threshold { found.append(Found(rowid: entry.rowid, distance: GeoPoint.kilometres(haversine: h))) }
                }
            }
            var spanned = 0
            let boxes = circle.boxes.map { box -> (rows: ClosedRange<Int64>, columns: ClosedRange<Int64>) in
                let (south, west) = Self.cell(box.latitude.lowerBound, box.longitude.lowerBound)
                let (north, east) = Self.cell(box.latitude.upperBound, box.longitude.upperBound)
                spanned += Int(north - south + 1) * Int(east - west + 1)
                return (south...north, west...east)
            }
            if spanned > cells.count {
                // A circle wider than the occupied cells: every cell, once.
                for entries in cells.values { visit(entries) }
            } else {
                var seen = Set<Int64>()
                for box in boxes {
                    for row in box.rows {
                        for column in box.columns where seen.insert(Self.key(row, column)).inserted {
                            if let entries = cells[Self.key(row, column)] { visit(entries) }
                        }
                    }
                }
            }
            return found
        }
    }

    private let kept = Mutex(Grid())

    /// Whether enough entries were added since the last count to count the places again.
    static func shouldCount(entries: Int, addedSinceCount: Int) -> Bool {
        entries >= 1024 && addedSinceCount * 8 >= entries
    }

    /// Whether a grid of `entries` holds so many gone places that it is made again.
    static func isStale(entries: Int, places: Int) -> Bool {
        entries * 4 > places * 5
    }

    private static func placedCount(_ connection: SQLiteConnection) throws -> Int {
        let statement = try connection.statement("SELECT count(*) FROM items INDEXED BY items_placed WHERE latitude IS NOT NULL")
        defer { statement.reset() }
        _ = try statement.step()
        return statement.int(0)
    }

    /// The grid made again from every placed item, replacing the kept one.
    private func rebuilt(connection: SQLiteConnection) throws -> Grid {
        kept.withLock { $0 = Grid() }
        var grid = try grid(connection: connection)
        grid.addedSinceCount = 0
        let result = grid
        kept.withLock { $0 = result }
        return result
    }

    /// The grid, up to date with what `connection` reads.
    func grid(connection: SQLiteConnection) throws -> Grid {
        var grid = kept.withLock { $0 }
        let highest = try FilterCache.highestRowid(connection)
        // The file was made again from nothing: start over.
        if highest < grid.covered { grid = Grid() }
        guard highest > grid.covered else { return grid }
        let statement = try connection.statement(
            "SELECT rowid, latitude, longitude FROM items INDEXED BY items_placed WHERE latitude IS NOT NULL AND rowid > ? AND rowid <= ?")
        statement.bind(1, grid.covered)
        statement.bind(2, highest)
        while try statement.step() {
            grid.add(Entry(rowid: statement.int64(0), latitude: statement.double(1), longitude: statement.double(2)))
        }
        statement.reset()
        grid.covered = highest
        // A deleted or replaced item's place stays in the grid (the search's liveness check
        // leaves it out) until rows worth an eighth of the grid were written since the placed
        // items were last counted; past a quarter more entries than places, the grid is made
        // again. Its memory stays within 5/4 of the places, and the count (a walk of the
        // partial index) is paid once per eighth of new rows.
        if Self.shouldCount(entries: grid.count, addedSinceCount: grid.addedSinceCount) {
            let placed = try Self.placedCount(connection)
            grid.addedSinceCount = 0
            if Self.isStale(entries: grid.count, places: placed) { return try rebuilt(connection: connection) }
        }
        let result = grid
        kept.withLock { kept in
            // A reader on an older snapshot of the file does not replace a newer grid.
            if kept.covered <= result.covered { kept = result }
        }
        return result
    }
}
