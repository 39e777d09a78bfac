import TextUtilities

/// A JSON value that keeps what the text said: object members in document order
/// (duplicates included) and numbers as their literal text, so nothing is lost or
/// reordered between reading a document and writing it back.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text, validated by the parser (`19.90` stays `19.90`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public init(_ value: Int) { self = .number(String(value)) }

    /// A finite double as a JSON number; NaN and infinities become `null`.
    public init(_ value: Double) {
        guard value.isFinite else { self = .null; return }
        if abs(value) < 1e15, value == Double(Int64(value)) {
            self = .number(String(Int64(value)))
        } else {
            self = .number(String(value))
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The number as a double, also reading numeric strings such as `"4.5"`
    /// (schema.org data often quotes its numbers).
    public var doubleValue: Double? {
        switch self {
        case .number(let literal): return Double(literal)
        case .string(let s): return Double(s.trimmingASCIIWhitespace())
        default: return nil
        }
    }

    public var intValue: Int? {
        switch self {
        case .number(let literal): return Int(literal) ?? Double(literal).flatMap { $0.isFinite && abs($0) < 9e18 ? Int($0) : nil }
        case .string(let s): return Int(s.trimmingASCIIWhitespace())
        default: return nil
        }
    }

    /// A one-element view of a value that may or may not be an array: JSON-LD allows a
    /// single value wherever a list is allowed.
    public var asList: [JSONValue] {
        switch self {
        case .array(let a): return a
        case .null: return []
        default: return [self]
        }
    }

    /// `value["key"]` on an object; nil on anything else.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A JSON object's members in document order. Lookups return the first member with the
/// key, as most JSON readers do.
public struct JSONObject: Sendable, Hashable {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    public init(_ members: [(String, JSONValue)]) {
        self.members = members.map { (key: $0.0, value: $0.1) }
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// Appends a member without looking for an existing one (keeps duplicates).
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(integerLiteral value: Int) { self.init(value) }
    public init(floatLiteral value: Double) { self.init(value) }
}
