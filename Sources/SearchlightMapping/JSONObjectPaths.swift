#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

/// Key paths read from a JSON object, as a crawled page's schema.org object (JSON-LD or
/// microdata): a name looks up a member (also spelled as a schema.org IRI), an array is a
/// to-many relationship (its elements' values joined with ", ", or aggregated), and an
/// object's text is its `@value` or `name`. Pure.
public enum JSONObjectPaths {
    /// The text `path` reads in `object` (several values joined with ``MappedItem/listSeparator``); nil when it reads none.
    public static func text(of path: RecordKeyPath, in object: JSONObject) -> String? {
        var values: [JSONValue] = [.object(object)]
        for step in path.steps {
            values = values.flatMap { value -> [JSONValue] in
                guard let found = member(step, of: value) else { return [] }
                return found.asList
            }
            if values.count > 10_000 { values = Array(values.prefix(10_000)) }
        }
        guard let aggregate = path.aggregate else {
            let texts = values.compactMap(text)
            return texts.isEmpty ? nil : texts.joined(separator: MappedItem.listSeparator)
        }
        if aggregate == .count { return String(values.count) }
        let members = values.compactMap { value -> String? in
            var current: [JSONValue] = [value]
            for step in path.memberSteps { current = current.compactMap { member(step, of: $0) }.flatMap(\.asList) }
            return current.first.flatMap(text)
        }
        let numbers = members.compactMap { Double($0) }
        return aggregate.reduce(numbers: numbers.count == members.count ? numbers : [], texts: numbers.count == members.count ? [] : members)
    }

    private static func member(_ key: String, of value: JSONValue) -> JSONValue? {
        guard let object = value.objectValue else { return nil }
        for name in [key, "http://schema.org/" + key, "https://schema.org/" + key] {
            if let found = object[name], !found.isNull { return found }
        }
        return nil
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text.isEmpty ? nil : text
        case .number(let number): return number
        case .bool(let flag): return flag ? "true" : "false"
        case .object(let object): return object["@value"].flatMap(text) ?? object["name"].flatMap(text)
        case .array(let list): return list.lazy.compactMap(text).first
        case .null: return nil
        }
    }
}
