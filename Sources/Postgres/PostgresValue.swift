import Glibc

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
    /// Text already in UTF-8 (an array literal built over bytes).
    case utf8([UInt8])

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
        case .text(var text):
            let hasNUL = text.withUTF8 { $0.isEmpty ? false : memchr($0.baseAddress!, 0, $0.count) != nil }
            return (hasNUL ? Array(text.replacing("\u{0}", with: "\u{FFFD}").utf8) : Array(text.utf8), false)
        case .utf8(let bytes): return (bytes, false)
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
    ///
    /// Built over UTF-8 bytes: a quote or backslash byte never occurs inside a multi-byte
    /// sequence, so escaping bytes is escaping characters (measured: escaping scalar by scalar
    /// into a String was 40 % of a `crawl --store` worker's CPU, its items' 30 KB bodies).
    public static func array(_ values: [String?]) -> PostgresValue {
        literal(values.count, bytes: values.reduce(0) { $0 + ($1?.utf8.count ?? 4) }) { index, append in
            guard var value = values[index] else { return false }
            value.withUTF8(append)
            return true
        }
    }

    /// The same from text already in UTF-8 (a JSON document as `JSONWriter.bytes` writes it),
    /// so that no `String` is made of it.
    public static func array(utf8 values: [[UInt8]?]) -> PostgresValue {
        literal(values.count, bytes: values.reduce(0) { $0 + ($1?.count ?? 4) }) { index, append in
            guard let value = values[index] else { return false }
            value.withUnsafeBufferPointer(append)
            return true
        }
    }

    /// `{"…","…",NULL}` from `count` elements, each handed to `element`, which passes its
    /// bytes to the function it is given, or returns false for NULL.
    private static func literal(_ count: Int, bytes: Int,
                                _ element: (Int, (UnsafeBufferPointer<UInt8>) -> Void) -> Bool) -> PostgresValue {
        var literal: [UInt8] = [0x7B]  // {
        literal.reserveCapacity(2 + bytes + 3 * count)
        for index in 0..<count {
            if index > 0 { literal.append(0x2C) }  // ,
            literal.append(0x22)
            let present = element(index) { bytes in
                var start = 0
                for (offset, byte) in bytes.enumerated() where byte == 0x22 || byte == 0x5C || byte == 0 {
                    literal.append(contentsOf: bytes[start..<offset])
                    // PostgreSQL text cannot hold NUL: U+FFFD in its place, as for `.text`.
                    if byte == 0 { literal += [0xEF, 0xBF, 0xBD] } else { literal += [0x5C, byte] }
                    start = offset + 1
                }
                literal.append(contentsOf: bytes[start...])
            }
            if present {
                literal.append(0x22)
            } else {
                literal.removeLast()
                literal += [0x4E, 0x55, 0x4C, 0x4C]  // NULL
            }
        }
        literal.append(0x7D)  // }
        return .utf8(literal)
    }

    public static func array(_ values: [Int64?]) -> PostgresValue { array(values.map { $0.map(String.init) }) }
    public static func array(_ values: [Int?]) -> PostgresValue { array(values.map { $0.map(String.init) }) }
    public static func array(_ values: [Double?]) -> PostgresValue {
        array(values.map { value in value.map { $0.isFinite ? $0.description : $0.isNaN ? "NaN" : $0 > 0 ? "Infinity" : "-Infinity" } })
    }
    public static func array(_ values: [Bool?]) -> PostgresValue { array(values.map { $0.map { $0 ? "t" : "f" } }) }
}
