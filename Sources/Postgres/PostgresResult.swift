/// The rows of a statement, copied out of libpq's result (which is freed at once), in
/// PostgreSQL's text format.
public struct PostgresResult: Sendable {
    public var columns: [String]
    public var rows: [PostgresRow]
    /// Rows an INSERT, UPDATE or DELETE touched.
    public var affected: Int

    public var first: PostgresRow? { rows.first }
}

/// One row; typed accessors read the text format (`t`/`f`, decimal numbers, `\x…` for bytea).
public struct PostgresRow: Sendable {
    public var values: [String?]

    public func isNull(_ column: Int) -> Bool { values[column] == nil }
    public func string(_ column: Int) -> String? { values[column] }
    public func int(_ column: Int) -> Int? { values[column].flatMap { Int($0) } }
    public func int64(_ column: Int) -> Int64? { values[column].flatMap { Int64($0) } }
    public func double(_ column: Int) -> Double? { values[column].flatMap { Double($0) } }
    public func bool(_ column: Int) -> Bool? { values[column].map { $0 == "t" } }

    /// A bytea column (hex output format, PostgreSQL's default since 9.0).
    public func bytes(_ column: Int) -> [UInt8]? {
        guard let text = values[column] else { return nil }
        let hex = Array(text.utf8.dropFirst(2))
        guard text.hasPrefix("\\x"), hex.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(hex.count / 2)
        var i = 0
        while i < hex.count {
            guard let hi = Self.nibble(hex[i]), let lo = Self.nibble(hex[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
