import TextUtilities
import JSON

/// One top-level schema.org entity found on a page, with its whole object tree.
///
/// JSON-LD entities keep the JSON as written (after `@graph` is expanded); microdata items
/// are converted to the same JSON-LD shape (`@type`, `@id`, one member per property, an
/// array when a property repeats), so one reader serves both.
public struct SchemaObject: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        case jsonLD = "json-ld"
        case microdata
    }

    public var source: Source
    public var value: JSONObject

    public init(source: Source, value: JSONObject) {
        self.source = source
        self.value = value
    }

    /// The entity's types without the schema.org prefix (`Product`, `Recipe`).
    public var types: [String] { SchemaVocabulary.types(of: value) }

    public var id: String? { value["@id"]?.stringValue }
}

/// Reading schema.org JSON regardless of how the publisher wrote it.
public enum SchemaVocabulary {
    /// Strips `http(s)://schema.org/` (and a `schema:` prefix) from a type or enumeration IRI.
    public static func localName(_ iri: String) -> String {
        let trimmed = iri.trimmingASCIIWhitespace()
        guard let first = trimmed.utf8.first, first | 0x20 == UInt8(ascii: "h") || first | 0x20 == UInt8(ascii: "s") else {
            return trimmed
        }
        let lower = trimmed.lowercased()
        for prefix in ["https://schema.org/", "http://schema.org/", "https://www.schema.org/", "http://www.schema.org/", "schema:"]
        where lower.hasPrefix(prefix) {
            return String(trimmed.dropFirst(prefix.count))
        }
        return trimmed
    }

    public static func types(of object: JSONObject) -> [String] {
        (object["@type"] ?? object["type"])?.asList.compactMap(\.stringValue).flatMap {
            $0.split(separator: " ").map { localName(String($0)) }
        } ?? []
    }

    public static func isType(_ object: JSONObject, _ names: Set<String>) -> Bool {
        types(of: object).contains { names.contains($0) }
    }

    /// The first value of `key`, also trying the schema.org IRI spelling some
    /// publishers use as a key (`http://schema.org/name`).
    public static func value(_ object: JSONObject, _ key: String) -> JSONValue? {
        if let v = object[key], !v.isNull { return v }
        return object["http://schema.org/" + key] ?? object["https://schema.org/" + key]
    }

    /// A property as text: a string, a number, or the `@value` / `name` of an object.
    public static func text(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        switch value {
        case .string(let s):
            let t = s.trimmingASCIIWhitespace()
            return t.isEmpty ? nil : t
        case .number(let n): return n
        case .bool(let b): return b ? "true" : "false"
        case .array(let items): return items.lazy.compactMap { text($0) }.first
        case .object(let o): return text(o["@value"]) ?? text(o["name"])
        case .null: return nil
        }
    }
}
