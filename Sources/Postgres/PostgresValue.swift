/// A statement parameter. Sent in PostgreSQL's text format, except bytes (binary format),
/// so that no value is ever spliced into SQL.
public enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case bytes([UInt8])

    public init(_ value: String?) { self = value.map(PostgresValue.text) ?? .null }
    public init(_ value: Int?) { self = value.map { .int(Int64($0)) } ?? .null }
    public init(_ value: Int64?) { self = value.map(PostgresValue.int) ?? .null }
    public init(_ value: Double?) { self = value.map(PostgresValue.double) ?? .null }
    public init(_ value: Bool?) { self = value.map(PostgresValue.bool) ?? .null }
    public init(_ value: [UInt8]?) { self = value.map(PostgresValue.bytes) ?? .null }

    /// The bytes sent and whether they are binary; nil for NULL.
    var wire: (bytes: [UInt8], binary: Bool)? {
        switch self {
        case .null: return nil
        case .text(let text): return (Array(text.utf8), false)
        case .int(let value): return (Array(String(value).utf8), false)
        // Swift's description of a Double is the shortest text that reads back exactly.
        case .double(let value): return (Array((value.isFinite ? value.description : value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity").utf8), false)
        case .bool(let value): return (Array((value ? "t" : "f").utf8), false)
        case .bytes(let bytes): return (bytes, true)
        }
    }
}
