import FoundationEssentials
import SQLite

/// An app's database, opened read-only (ingest never writes it; the app may hold it open in
/// WAL mode and keep saving while we read). Reads rows, follows relationships and walks key
/// paths. Recently read rows are cached (at most ``rowCacheLimit``); to-many memberships
/// are read whole, once per instance, as one scan of the members' table.
///
/// Not thread-safe: one owner (an ingest run) uses it from one thread.
public final class SourceDatabase {
    public let path: String
    public let schema: SourceSchema
    let connection: SQLiteConnection
    private var columnIndexes: [String: [String: Int]] = [:]
    private var rowCache: [String: [RecordKey: Row]] = [:]
    private var cachedRows = 0
    private var cachedBytes = 0
    private var memberships: [MembershipKey: [RecordKey: [RecordKey]]] = [:]
    /// `SELECT <key>, <columns> FROM <table>` per table, built once.
    private var selects: [String: String] = [:]

    private struct MembershipKey: Hashable {
        var table: String
        var column: String
    }
    static let rowCacheLimit = 200_000
    /// Bytes of cached rows kept at most (text values count their length).
    static let rowCacheBytes = 64 << 20
    /// A to-many relationship contributes at most this many members to one value.
    static let memberLimit = 100_000

    /// One record: its key, its entity (by `Z_ENT`, or the table), its columns in table order.
    public struct Row: Sendable {
        public var table: String
        public var key: RecordKey
        public var entity: String
        public var values: [RecordValue]
    }

    public init(path: String, model: DataModel?) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw SourceSchema.InspectError(problem: "\(path): no such file") }
        // A FIFO, a device or a directory would hang or fail deep inside SQLite.
        guard (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular else {
            throw SourceSchema.InspectError(problem: "\(path): not a regular file")
        }
        self.path = path
        connection = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 10)
        // A file that is not SQLite fails here rather than on the first row.
        schema = try SourceSchema.inspect(connection, model: model)
        for table in schema.tables.values {
            columnIndexes[table.name] = Dictionary(table.columns.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { a, _ in a })
            selects[table.name] = "SELECT \(([table.keyColumn] + table.columns).map(Self.quote).joined(separator: ", ")) FROM \(Self.quote(table.name))"
        }
    }

    /// Ends the read transaction of any statement left at a row, so the next read sees the
    /// app's latest save.
    public func refresh() {
        connection.finishStatements()
        rowCache = [:]
        cachedRows = 0
        cachedBytes = 0
        memberships = [:]
    }

    func columnIndex(_ column: String, in table: String) -> Int? { columnIndexes[table]?[column] }


    static func quote(_ name: String) -> String { "\"" + name.replacingQuotes() + "\"" }

    private func row(from statement: SQLiteStatement, table: SourceSchema.Table) -> Row? {
        guard let key = RecordKey.read(statement, 0) else { return nil }
        var values: [RecordValue] = []
        values.reserveCapacity(table.columns.count)
        for index in 0..<table.columns.count { values.append(RecordValue.read(statement, Int32(index + 1))) }
        var entity = table.name
        if let column = table.entityColumn, let index = columnIndexes[table.name]?[column], case .integer(let code) = values[index] {
            entity = schema.entityNames[code] ?? table.name
        }
        return Row(table: table.name, key: key, entity: entity, values: values)
    }

    /// How many rows `table` has (0 for a table the schema does not know).
    public func rowCount(table name: String) throws -> Int {
        guard schema.tables[name] != nil else { return 0 }
        let statement = try connection.prepare("SELECT count(*) FROM \(Self.quote(name))")
        guard try statement.step() else { return 0 }
        return Int(statement.int64(0))
    }

    /// Every row of `table`, in key order.
    public func scan(table name: String, _ body: (Row) throws -> Void) throws {
        guard let table = schema.tables[name] else { return }
        let statement = try connection.prepare((selects[name] ?? "") + " ORDER BY 1")
        while try statement.step() {
            if let row = row(from: statement, table: table) { try body(row) }
        }
    }

    /// The key and the named columns of every row of `table`, in key order.
    public func scan(table name: String, columns: [String], _ body: (RecordKey, [RecordValue]) throws -> Void) throws {
        guard let table = schema.tables[name] else { return }
        let list = ([table.keyColumn] + columns).map(Self.quote).joined(separator: ", ")
        let statement = try connection.prepare("SELECT \(list) FROM \(Self.quote(name)) ORDER BY 1")
        var values = [RecordValue](repeating: .null, count: columns.count)
        while try statement.step() {
            guard let key = RecordKey.read(statement, 0) else { continue }
            for index in columns.indices { values[index] = RecordValue.read(statement, Int32(index + 1)) }
            try body(key, values)
        }
    }

    /// Pairs of keys from two columns of a (join) table.
    func pairs(table: String, _ first: String, _ second: String) throws -> [(RecordKey, RecordKey)] {
        let statement = try connection.prepare("SELECT \(Self.quote(first)), \(Self.quote(second)) FROM \(Self.quote(table))")
        var result: [(RecordKey, RecordKey)] = []
        while try statement.step() {
            if let a = RecordKey.read(statement, 0), let b = RecordKey.read(statement, 1) { result.append((a, b)) }
        }
        return result
    }

    /// Keys of `table`'s rows whose `column` holds one of `values`.
    func keys(table name: String, where column: String, in values: [RecordKey]) throws -> [RecordKey] {
        guard let table = schema.tables[name] else { return [] }
        return try firstColumn("SELECT \(Self.quote(table.keyColumn)) FROM \(Self.quote(name)) WHERE \(Self.quote(column))", in: values)
    }

    /// The owners' keys (`own`) joined to any of the members' keys (`other`) in a join table.
    func keys(joinTable: String, own: String, other: String, in values: [RecordKey]) throws -> [RecordKey] {
        try firstColumn("SELECT \(Self.quote(own)) FROM \(Self.quote(joinTable)) WHERE \(Self.quote(other))", in: values)
    }

    /// The values of `column` in the rows of `table` with the given keys.
    func values(table name: String, column: String, keys: [RecordKey]) throws -> [RecordKey] {
        guard let table = schema.tables[name] else { return [] }
        return try firstColumn("SELECT \(Self.quote(column)) FROM \(Self.quote(name)) WHERE \(Self.quote(table.keyColumn))", in: keys)
    }

    /// The first column of `select … WHERE column` + ` IN (values)`, asked 500 values at a time.
    private func firstColumn(_ select: String, in values: [RecordKey]) throws -> [RecordKey] {
        var result: [RecordKey] = []
        for start in stride(from: 0, to: values.count, by: 500) {
            let chunk = Array(values[start..<min(start + 500, values.count)])
            let statement = try connection.prepare(select + " IN (" + Array(repeating: "?", count: chunk.count).joined(separator: ", ") + ")")
            statement.bind(chunk.map(\.sqlite))
            while try statement.step() { if let key = RecordKey.read(statement, 0) { result.append(key) } }
        }
        return result
    }

    /// `PRAGMA data_version`: changes when another connection (the app) commits.
    public func dataVersion() throws -> Int64 {
        let statement = try connection.statement("PRAGMA data_version")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// The row of `table` with `key`, or nil when there is none (deleted).
    public func row(table name: String, key: RecordKey) throws -> Row? {
        if let cached = rowCache[name]?[key] { return cached }
        guard let table = schema.tables[name] else { return nil }
        let statement = try connection.statement((selects[name] ?? "") + " WHERE \(Self.quote(table.keyColumn)) = ?")
        statement.bind([key.sqlite])
        defer { statement.reset() }
        guard try statement.step(), let found = row(from: statement, table: table) else { return nil }
        let bytes = found.values.reduce(64) { $0 + $1.bytes }
        if cachedRows >= Self.rowCacheLimit || cachedBytes + bytes > Self.rowCacheBytes {
            rowCache = [:]
            cachedRows = 0
            cachedBytes = 0
        }
        rowCache[name, default: [:]][key] = found
        cachedRows += 1
        cachedBytes += bytes
        return found
    }

    /// The keys a row's to-one relationship points at (none when it is empty).
    func target(of row: Row, _ link: SourceSchema.Link) throws -> RecordKey? {
        guard case .toOne(let column, let destination, let targetColumn) = link, let index = columnIndex(column, in: row.table) else { return nil }
        let value: RecordKey? = switch row.values[index] {
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        default: nil
        }
        guard let value else { return nil }
        guard let targetColumn, let table = schema.entities[destination].flatMap({ schema.tables[$0.table] }) else { return value }
        let statement = try connection.statement("SELECT \(Self.quote(table.keyColumn)) FROM \(Self.quote(table.name)) WHERE \(Self.quote(targetColumn)) = ? LIMIT 1")
        statement.bind([value.sqlite])
        defer { statement.reset() }
        return try statement.step() ? RecordKey.read(statement, 0) : nil
    }

    /// The members' keys of a to-many relationship of the record `owner`, in key order.
    func members(_ link: SourceSchema.Link, owner: RecordKey) throws -> [RecordKey] {
        let key: MembershipKey
        switch link {
        case .toOne: return []
        case .toManyInverse(let destination, let column): key = MembershipKey(table: destination, column: column)
        case .toManyJoin(_, let table, let ownColumn, _): key = MembershipKey(table: table, column: ownColumn)
        }
        if let map = memberships[key] { return map[owner] ?? [] }
        let sql: String
        switch link {
        case .toOne: return []
        case .toManyInverse(let destination, let column):
            guard let table = schema.entities[destination].flatMap({ schema.tables[$0.table] }) else { return [] }
            sql = "SELECT \(Self.quote(column)), \(Self.quote(table.keyColumn)) FROM \(Self.quote(table.name)) WHERE \(Self.quote(column)) IS NOT NULL ORDER BY 2"
        case .toManyJoin(_, let table, let ownColumn, let otherColumn):
            sql = "SELECT \(Self.quote(ownColumn)), \(Self.quote(otherColumn)) FROM \(Self.quote(table)) ORDER BY 2"
        }
        var map: [RecordKey: [RecordKey]] = [:]
        let statement = try connection.prepare(sql)
        while try statement.step() {
            guard let owner = RecordKey.read(statement, 0), let member = RecordKey.read(statement, 1) else { continue }
            // Rows come in member order: a pair repeated in a join table counts once, and
            // one record keeps at most `memberLimit` members.
            let members = map[owner]
            if members?.last == member || (members?.count ?? 0) >= Self.memberLimit { continue }
            map[owner, default: []].append(member)
        }
        memberships[key] = map
        return map[owner] ?? []
    }

    /// The first `limit` members' keys of one record's to-many relationship, asked of the
    /// database for that record alone (`resolve` and the service look up one record; the
    /// whole-table read of ``members(_:owner:)`` is for a run over every record).
    func members(_ link: SourceSchema.Link, owner: RecordKey, limit: Int) throws -> [RecordKey] {
        let sql: String
        switch link {
        case .toOne: return []
        case .toManyInverse(let destination, let column):
            guard let table = schema.entities[destination].flatMap({ schema.tables[$0.table] }) else { return [] }
            sql = "SELECT \(Self.quote(table.keyColumn)) FROM \(Self.quote(table.name)) WHERE \(Self.quote(column)) = ? ORDER BY 1 LIMIT ?"
        case .toManyJoin(_, let table, let ownColumn, let otherColumn):
            sql = "SELECT DISTINCT \(Self.quote(otherColumn)) FROM \(Self.quote(table)) WHERE \(Self.quote(ownColumn)) = ? ORDER BY 1 LIMIT ?"
        }
        let statement = try connection.prepare(sql)
        statement.bind([owner.sqlite, .integer(Int64(limit))])
        var keys: [RecordKey] = []
        while try statement.step() { if let key = RecordKey.read(statement, 0) { keys.append(key) } }
        return keys
    }

    /// The table holding `entity`'s records.
    func table(of entity: String) -> String? { schema.entities[entity]?.table }
}

extension String {
    /// The name with `"` doubled, for a quoted SQL identifier.
    func replacingQuotes() -> String {
        var result = ""
        for character in self {
            if character == "\"" { result += "\"\"" } else { result.append(character) }
        }
        return result
    }
}
