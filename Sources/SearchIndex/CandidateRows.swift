import FoundationEssentials
import Items
import SQLite

/// The item rows a search's candidates need — whether each is still there and unexpired,
/// and the signals ``Ranking`` multiplies its relevance by — read for many candidates in
/// one statement (a JSON array of rowids joined to `items` and `engagement`) and kept for
/// the rest of the search, instead of one statement per candidate for each question.
final class CandidateRows {
    struct Row {
        var expires: Double?
        var quality: Double
        var rating: Double?
        var ratingScale: Double
        var ratingCount: Int?
        var updated: Double
        var engagement: EngagementCounts
        var location: GeoPoint?
    }

    private let connection: SQLiteConnection
    /// Rows read so far; a rowid read and found missing maps to nil.
    private(set) var rows: [Int64: Row?] = [:]

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Reads the rows of `rowids` not read yet.
    func load<S: Sequence>(_ rowids: S) throws where S.Element == Int64 {
        var missing: [Int64] = []
        for rowid in rowids where rows[rowid] == nil {
            missing.append(rowid)
            rows[rowid] = .some(nil)
        }
        guard !missing.isEmpty else { return }
        let statement = try connection.statement("""
            SELECT i.rowid, i.expires, i.quality, i.rating, i.rating_scale, i.rating_count, i.updated, coalesce(e.impressions, 0),
                coalesce(e.clicks, 0), coalesce(e.anonymous_impressions, 0), coalesce(e.anonymous_clicks, 0), coalesce(e.anonymous_networks, 0),
                i.latitude, i.longitude
            FROM json_each(?1) j JOIN items i ON i.rowid = j.value LEFT JOIN engagement e ON e.owner = i.owner AND e.uid = i.uid
            """)
        statement.bind(1, "[" + missing.map(String.init).joined(separator: ",") + "]")
        while try statement.step() {
            rows[statement.int64(0)] = Row(
                expires: statement.optionalDouble(1), quality: statement.double(2), rating: statement.optionalDouble(3),
                ratingScale: statement.double(4), ratingCount: statement.optionalInt(5), updated: statement.double(6),
                engagement: EngagementCounts(impressions: statement.int(7), clicks: statement.int(8), anonymousImpressions: statement.int(9),
                                             anonymousClicks: statement.int(10), anonymousNetworks: statement.int(11)),
                location: statement.optionalDouble(12).flatMap { latitude in
                    statement.optionalDouble(13).map { GeoPoint(latitude: latitude, longitude: $0) }
                })
        }
        statement.reset()
    }

    /// The row of `rowid` (read with ``load(_:)`` first); nil when its item is gone.
    func row(_ rowid: Int64) -> Row? { rows[rowid] ?? nil }
}
