import ItemMapping
import FoundationEssentials
import SQLite
import TextUtilities

/// A primary key as the source stores it: Core Data's `Z_PK` and most tables' keys are
/// integers; a table may use text.
public enum RecordKey: Sendable, Hashable, CustomStringConvertible, Comparable {
    case integer(Int64)
    case text(String)

    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .text(let value): value
        }
    }

    var sqlite: SQLiteValue {
        switch self {
        case .integer(let value): .integer(value)
        case .text(let value): .text(value)
        }
    }

    /// Reads column `index` of the current row; nil for NULL (no key), reals and blobs.
    static func read(_ statement: SQLiteStatement, _ index: Int32) -> RecordKey? {
        switch statement.type(index) {
        case .integer: .integer(statement.int64(index))
        case .text: statement.string(index).map(RecordKey.text)
        default: nil
        }
    }

    /// A key written as text (`resolve`'s argument, an item's `source.key`), typed as `like`.
    init(_ text: String, integer: Bool) {
        if integer, let value = Int64(text) { self = .integer(value) } else { self = .text(text) }
    }

    public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a < b
        case (.integer, .text): true
        case (.text, .integer): false
        case (.text(let a), .text(let b)): Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
    }
}

/// One column's value in a record.
public enum RecordValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Binary data is never inserted into text; only its size is kept.
    case blob(Int)

    /// Core Data stores dates as seconds since 2001-01-01 00:00:00 UTC.
    static let referenceDate = 978_307_200.0

    /// Text values are read up to this many bytes: no item field holds more (the longest,
    /// `text`, holds 16,384), and a store of 100 KB titles must not fill memory.
    public static let maximumTextBytes = 16_384

    static func read(_ statement: SQLiteStatement, _ index: Int32) -> RecordValue {
        switch statement.type(index) {
        case .integer: .integer(statement.int64(index))
        case .real: .real(statement.double(index))
        case .text: .text(truncated(statement.string(index) ?? ""))
        case .blob: .blob(statement.byteCount(index))
        case .null: .null
        }
    }

    /// `text` cut to ``maximumTextBytes`` at a character boundary.
    static func truncated(_ text: String) -> String {
        guard text.utf8.count > maximumTextBytes else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: maximumTextBytes)
        while end > text.startIndex, !text.unicodeScalars.indices.contains(end) { end = text.utf8.index(before: end) }
        return String(text[..<end])
    }

    /// Roughly what the value takes in memory, for the row cache's budget.
    var bytes: Int {
        if case .text(let text) = self { return 16 + text.utf8.count }
        return 16
    }

    var number: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        case .text(let value): Double(value)
        default: nil
        }
    }

    /// The value as a template inserts it; nil when there is none. Dates (by the model's
    /// type) as ISO 8601, booleans as `true`/`false`, numbers as written.
    func text(as type: DataModel.AttributeType?) -> String? {
        switch self {
        case .null, .blob: return nil
        case .text(let value): return value
        case .integer(let value):
            if type == .boolean { return value != 0 ? "true" : "false" }
            if type == .date { return ISO8601.string(fromSeconds: Double(value) + Self.referenceDate) }
            return String(value)
        case .real(let value):
            if type == .date { return ISO8601.string(fromSeconds: value + Self.referenceDate) }
            return Self.format(value)
        }
    }

    static func format(_ value: Double) -> String { RecordKeyPath.numberText(value) }

    /// Feeds the value into a version hash.
    func hash(into digest: inout FNV1a) {
        switch self {
        case .null: digest.add([0])
        case .integer(let value): digest.add([1]); digest.add(value)
        case .real(let value): digest.add([2]); digest.add(Int64(bitPattern: value.bitPattern))
        case .text(let value): digest.add([3]); digest.add(value)
        case .blob(let count): digest.add([4]); digest.add(Int64(count))
        }
    }
}
