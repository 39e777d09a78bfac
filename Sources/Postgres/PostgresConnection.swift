import CPostgres
import TextUtilities

/// One libpq connection, owning its `PGconn`. <https://www.postgresql.org/docs/current/libpq.html>
///
/// Not thread-safe: one owner uses it at a time (``PostgresSession`` serialises and
/// reconnects). Statements go through `PQexecParams` with parameters, never spliced text.
public final class PostgresConnection {
    private let handle: OpaquePointer

    /// Connects to a `postgres://` or `postgresql://` URL (libpq's connection URI), with a
    /// 10 s connect timeout unless the URL sets one.
    public init(url: String) throws(PostgresError) {
        let conninfo = try Self.conninfo(url)
        guard let handle = PQconnectdb(conninfo) else { throw PostgresError(.connection, "libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(.connection, "cannot connect to PostgreSQL: \(message)")
        }
        self.handle = handle
        // Notices (NOTICE, WARNING from the server) are not errors; keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        PQfinish(handle)
    }

    /// The URL as libpq takes it: the scheme checked, a connect timeout and an
    /// application name added when missing.
    static func conninfo(_ url: String) throws(PostgresError) -> String {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw PostgresError(.invalidURL, "a store URL starts with postgres:// or postgresql://, not '\(url.prefix(40))'")
        }
        var extras: [String] = []
        if !url.contains("connect_timeout=") { extras.append("connect_timeout=10") }
        if !url.contains("application_name=") { extras.append("application_name=searchlight") }
        guard !extras.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + extras.joined(separator: "&")
    }

    /// True while libpq considers the connection usable.
    public var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The connection's socket, to wait on for notifications (`poll`); -1 when closed.
    public var socket: Int32 { PQsocket(handle) }

    /// The channels of the notifications (`LISTEN`/`NOTIFY`) that arrived, reading what the
    /// socket holds without blocking; throws when the connection is lost.
    public func takeNotifications() throws(PostgresError) -> [String] {
        guard PQconsumeInput(handle) == 1 else { throw PostgresError(.connection, Self.trimmed(PQerrorMessage(handle))) }
        var channels: [String] = []
        while let notification = PQnotifies(handle) {
            channels.append(String(cString: notification.pointee.relname))
            PQfreemem(notification)
        }
        return channels
    }

    /// Runs one statement with `$1`, `$2`… bound to `parameters`.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let wires = parameters.map(\.wire)
        // Each parameter's bytes must outlive the call: keep them in one buffer, NUL-terminated.
        var storage: [UInt8] = []
        var offsets: [Int?] = []
        for wire in wires {
            guard let wire else {
                offsets.append(nil)
                continue
            }
            offsets.append(storage.count)
            storage += wire.bytes
            storage.append(0)
        }
        let lengths = wires.map { Int32($0?.bytes.count ?? 0) }
        let formats = wires.map { Int32(($0?.binary ?? false) ? 1 : 0) }
        let result: OpaquePointer? = storage.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { offset in base.map { $0 + offset } } }
            return pointers.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        PQexecParams(handle, sql, Int32(parameters.count), nil, values.baseAddress, lengths.baseAddress, formats.baseAddress, 0)
                    }
                }
            }
        }
        return try Self.read(result, connection: handle)
    }

    /// Runs a script of several statements without parameters (schema migrations), through
    /// the simple query protocol, which allows more than one statement.
    public func executeScript(_ sql: String) throws(PostgresError) {
        _ = try Self.read(PQexec(handle, sql), connection: handle)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if isOpen { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    private static func read(_ result: OpaquePointer?, connection: OpaquePointer) throws(PostgresError) -> PostgresResult {
        guard let result else {
            throw PostgresError(.connection, trimmed(PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            break
        default:
            let state = PQresultErrorField(result, sl_pg_diag_sqlstate()).map { String(cString: $0) }
            let message = PQresultErrorField(result, sl_pg_diag_message_primary()).map { String(cString: $0) }
                ?? trimmed(PQerrorMessage(connection))
            if status == PGRES_FATAL_ERROR, state == nil, PQstatus(connection) != CONNECTION_OK {
                throw PostgresError(.connection, message)
            }
            throw PostgresError(.statement, sqlState: state, message)
        }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [PostgresRow] = []
        rows.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            var values: [String?] = []
            values.reserveCapacity(columnCount)
            for c in 0..<columnCount {
                if PQgetisnull(result, Int32(r), Int32(c)) != 0 {
                    values.append(nil)
                } else {
                    let length = Int(PQgetlength(result, Int32(r), Int32(c)))
                    let pointer = UnsafeRawPointer(PQgetvalue(result, Int32(r), Int32(c))!).assumingMemoryBound(to: UInt8.self)
                    values.append(String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self))
                }
            }
            rows.append(PostgresRow(values: values))
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
        return PostgresResult(columns: columns, rows: rows, affected: affected)
    }

    private static func trimmed(_ message: UnsafeMutablePointer<CChar>?) -> String {
        guard let message else { return "unknown libpq error" }
        return String(cString: message).trimmingASCIIWhitespace()
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
