import CSQLite

/// A prepared statement, finalized when released. <https://www.sqlite.org/c3ref/stmt.html>
public final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    public let sql: String

    init(connection: SQLiteConnection, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(code: sqlite3_extended_errcode(connection.handle), message: String(cString: sqlite3_errmsg(connection.handle)), sql: sql)
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: binding (1-based indexes, as SQLite counts)

    public func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    public func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    public func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    public func bind(_ index: Int32, _ value: String?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        // The length is passed, so text with an embedded NUL is stored whole.
        sqlite3_bind_text64(handle, index, value, sqlite3_uint64(value.utf8.count), sl_sqlite_transient(), UInt8(SQLITE_UTF8))
    }

    public func bind(_ index: Int32, blob: [UInt8]?) {
        guard let blob else {
            sqlite3_bind_null(handle, index)
            return
        }
        // A NULL pointer would bind NULL: an empty blob is bound as a zero-length blob.
        guard !blob.isEmpty else {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        _ = blob.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), sl_sqlite_transient()) }
    }

    /// Binds values to parameters 1, 2, 3… in order.
    public func bind(_ values: [SQLiteValue]) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: sqlite3_bind_null(handle, index)
            case .integer(let v): sqlite3_bind_int64(handle, index, v)
            case .real(let v): sqlite3_bind_double(handle, index, v)
            case .text(let v): bind(index, v)
            case .blob(let v): bind(index, blob: v)
            }
        }
    }

    // MARK: stepping

    /// Advances to the next row; false when the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(connection.handle)), sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    public func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        reset()
        bind(values)
        while try step() {}
    }

    // MARK: columns (0-based, as SQLite counts)

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    public func isBlob(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_BLOB }

    /// A column's storage class in the current row.
    public enum ColumnType: Sendable { case integer, real, text, blob, null }

    public func type(_ column: Int32) -> ColumnType {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The size in bytes of a text or blob column.
    public func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }

    /// How many columns the statement returns, and their names.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func columnName(_ column: Int32) -> String { sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "" }

    public func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    public func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }

    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    public func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes of a blob column without copying them, valid only inside `body` (and
    /// only until the statement steps again).
    public func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let count = Int(sqlite3_column_bytes(handle, column))
        let bytes = sqlite3_column_blob(handle, column)
        return try body(UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count > 0 && bytes != nil ? count : 0))
    }

    public func blob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}

/// A value to bind.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public init(_ value: String?) { self = value.map(SQLiteValue.text) ?? .null }
    public init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    public init(_ value: Double?) { self = value.map(SQLiteValue.real) ?? .null }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
