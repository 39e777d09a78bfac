import Items
import JSON
import SQLite
import Synchronization
import TextUtilities

/// Counts of a search's matches by a field's value (Meilisearch's and Typesense's facets),
/// for the fields a person narrows app content by: its content type and its site.
public enum Facet: String, Sendable, Hashable, CaseIterable {
    case contentType
    case domain

    /// Values counted per facet at most (the most frequent).
    public static let maximumValues = 20
    /// The candidates counted: the best this many matches (``FacetCounts/exact`` says whether
    /// that was every match).
    public static let candidates = 1000

    var column: String {
        switch self {
        case .contentType: "content_type"
        case .domain: "domain"
        }
    }

    /// Reads a comma-separated `facets` value; throws for a name that is not a facet.
    public static func parse(_ text: String) throws(SearchIndexError) -> Set<Facet> {
        var facets = Set<Facet>()
        for name in text.split(separator: ",") {
            guard let facet = Facet(rawValue: String(name).trimmingASCIIWhitespace()) else {
                throw .invalidQuery("facets takes \(allCases.map(\.rawValue).joined(separator: ", ")), not '\(name.prefix(40))'")
            }
            facets.insert(facet)
        }
        return facets
    }
}

/// A search's facet counts: for each facet asked, its values by count, most frequent first
/// (then by value); `exact` when they count every match, else they count the best
/// ``Facet/candidates`` (as ``SearchResponse/totalIsExact`` says of the total).
public struct FacetCounts: Sendable, Hashable {
    public var counts: [Facet: [(value: String, count: Int)]]
    public var exact: Bool

    public init(counts: [Facet: [(value: String, count: Int)]] = [:], exact: Bool = true) {
        self.counts = counts
        self.exact = exact
    }

    public static func == (a: FacetCounts, b: FacetCounts) -> Bool {
        a.exact == b.exact && a.counts.keys == b.counts.keys
            && a.counts.allSatisfy { facet, values in
                let other = b.counts[facet] ?? []
                return values.count == other.count && zip(values, other).allSatisfy { $0.value == $1.value && $0.count == $1.count }
            }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(exact)
        for facet in counts.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            hasher.combine(facet)
            for entry in counts[facet] ?? [] {
                hasher.combine(entry.value)
                hasher.combine(entry.count)
            }
        }
    }

    /// Counts `facets` over the items of `rowids` (the search's candidates), from each
    /// facet's column of values held in memory (``FacetColumns``).
    static func count(_ facets: Set<Facet>, rowids: [Int64], exact: Bool, file: String, connection: SQLiteConnection) throws -> FacetCounts {
        var result = FacetCounts(exact: exact)
        for facet in facets {
            let column = try FacetColumns.shared.column(facet, file: file, connection: connection)
            var tally: [UInt32: Int] = [:]
            for rowid in rowids {
                let id = column.value(rowid)
                if id != 0 { tally[id, default: 0] += 1 }
            }
            result.counts[facet] = Self.best(tally.map { (column.names[Int($0.key)], $0.value) })
        }
        return result
    }

    /// The most frequent values first, then by value; at most ``Facet/maximumValues``.
    static func best(_ values: [(value: String, count: Int)]) -> [(value: String, count: Int)] {
        Array(values.sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }.prefix(Facet.maximumValues))
    }

    /// Several shards' counts as one index's: summed (saturating), exact only if every part was.
    public static func merged(_ parts: [FacetCounts]) -> FacetCounts {
        var sums: [Facet: [String: Int]] = [:]
        var exact = true
        for part in parts {
            exact = exact && part.exact
            for (facet, values) in part.counts {
                for entry in values {
                    let (sum, overflow) = sums[facet, default: [:]][entry.value, default: 0].addingReportingOverflow(entry.count)
                    sums[facet, default: [:]][entry.value] = overflow ? Int.max : sum
                }
                if sums[facet] == nil { sums[facet] = [:] }
            }
        }
        // A value past a shard's first 20 is not counted there: the merge is exact only if no
        // part was cut.
        let cut = parts.contains { $0.counts.values.contains { $0.count >= Facet.maximumValues } }
        return FacetCounts(counts: sums.mapValues { best($0.map { ($0.key, $0.value) }) }, exact: exact && !cut)
    }

    /// `{"contentType": {"public.image": 12, …}, …}`.
    public var json: JSONValue {
        .object(JSONObject(counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { facet, values in
            (facet.rawValue, .object(JSONObject(values.map { ($0.value, JSONValue($0.count)) })))
        }))
    }

    /// Reads ``json`` back (a client's view, a router's of a shard's answer): facets it does
    /// not know, values that are not counts from 0 to 2^53, and lists past
    /// ``Facet/maximumValues`` or values over 2,048 bytes are refused.
    public init(json: JSONValue, exact: Bool) throws(SearchIndexError) {
        guard let object = json.objectValue else { throw SearchIndexError(.invalidResponse, "facets must be an object") }
        var counts: [Facet: [(value: String, count: Int)]] = [:]
        for member in object.members {
            guard let facet = Facet(rawValue: member.key), let values = member.value.objectValue, values.members.count <= Facet.maximumValues else {
                throw SearchIndexError(.invalidResponse, "facets.\(member.key.prefix(40)) is not a facet's counts")
            }
            var list: [(value: String, count: Int)] = []
            for value in values.members {
                guard let count = value.value.intValue, (0...(1 << 53)).contains(count), value.key.utf8.count <= 2048 else {
                    throw SearchIndexError(.invalidResponse, "facets.\(member.key) holds a count that is not a count")
                }
                list.append((value.key, count))
            }
            counts[facet] = Self.best(list)
        }
        self.init(counts: counts, exact: exact)
    }
}

/// Each facet's value for every row of an index file, in memory: a number per rowid naming
/// one of the values seen (`0`: none), built by one scan of `items` and extended by the rows
/// written since — a row's content type and site never change (a changed item is a new row).
/// 4 bytes a rowid from the oldest item's (1,000,000 items written once take 4 MB a facet).
final class FacetColumns: Sendable {
    static let shared = FacetColumns()

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

    private struct Key: Hashable {
        var file: String
        var facet: Facet
    }

    /// At most this many values a facet keeps names for; rows of further values count as none.
    static let maximumValues = 1 << 20
    /// Files whose columns are kept (the oldest dropped past it).
    static let files = 8

    private let columns = Mutex<[Key: Column]>([:])

    func column(_ facet: Facet, file: String, connection: SQLiteConnection) throws -> Column {
        let key = Key(file: file, facet: facet)
        var column = columns.withLock { $0[key] } ?? Column()
        let highest = try FilterCache.highestRowid(connection)
        if highest < column.covered { column = Column() }
        guard highest > column.covered else { return column }
        if column.ids.isEmpty {
            column.base = try FilterCache.lowestRowid(connection)
            column.covered = max(column.covered, column.base - 1)
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
            columns[key] = result
            let files = Set(columns.keys.map(\.file))
            if files.count > Self.files, let other = files.first(where: { $0 != file }) {
                columns = columns.filter { $0.key.file != other }
            }
        }
        return result
    }
}
