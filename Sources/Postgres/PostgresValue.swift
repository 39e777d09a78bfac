/// A statement parameter. Sent in PostgreSQL's text format, except bytes (binary format),
/// so that no value is ever spliced into SQL. Text with NUL, which PostgreSQL's text type
/// cannot hold, is sent with U+FFFD in its place.
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
        // PostgreSQL text cannot hold NUL: it becomes U+FFFD rather than failing the statement.
        case .text(let text): return (text.utf8.contains(0) ? Array(text.replacing("\u{0}", with: "\u{FFFD}").utf8) : Array(text.utf8), false)
        case .int(let value): return (Array(String(value).utf8), false)
        // Swift's description of a Double is the shortest text that reads back exactly.
        case .double(let value): return (Array((value.isFinite ? value.description : value.isNaN ? "NaN" : value > 0 ? "Infinity" : "-Infinity").utf8), false)
        case .bool(let value): return (Array((value ? "t" : "f").utf8), false)
        case .bytes(let bytes): return (bytes, true)
        }
    }
}

extension PostgresValue {
    /// An array parameter in PostgreSQL's array literal form (`{"a",NULL,"b\\"c"}`), for
    /// statements that take many rows at once through `unnest($1::text[], …)`.
    public static func array(_ values: [String?]) -> PostgresValue {
        .text("{" + values.map { value in
            guard let value else { return "NULL" }
            var quoted = "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
                quoted.unicodeScalars.append(character)
            }
            return quoted + "\""
        }.joined(separator: ",") + "}")
    }

    public static func array(_ values: [Int64?]) -> PostgresValue { array(values.map { $0.map(String.init) }) }
    public static func array(_ values: [Int?]) -> PostgresValue { array(values.map { $0.map(String.init) }) }
    public static func array(_ values: [Double?]) -> PostgresValue {
        array(values.map { value in value.map { $0.isFinite ? $0.description : $0.isNaN ? "NaN" : $0 > 0 ? "Infinity" : "-Infinity" } })
    }
    public static func array(_ values: [Bool?]) -> PostgresValue { array(values.map { $0.map { $0 ? "t" : "f" } }) }
}
