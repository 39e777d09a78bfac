import ItemMapping
import JSON

/// The record behind an ingested item, as `objectFromUserActivity` gives an app: its
/// source, entity and key, and of its attributes and relationships those its mapping
/// reads (the values and the related records' keys) — never other columns or tables.
public struct ResolvedRecord: Sendable {
    public var source: String
    public var entity: String
    public var key: String
    /// Attribute name → value, in name order.
    public var attributes: [(name: String, value: RecordValue, type: DataModel.AttributeType?)]
    /// Relationship name → the related entity and keys (at most ``relatedLimit``), in name order.
    public var relationships: [(name: String, entity: String, keys: [String], toMany: Bool)]

    public static let relatedLimit = 1000

    /// Reads the record `key` of `entity` through `mappings`: nil when the source has no
    /// such record (deleted), or when no mapping covers its entity.
    public init?(database: SourceDatabase, mappings: MappingSet, entity: String, key: String) throws {
        guard let found = database.schema.entities[entity],
            let mapping = mappings.mapping(for: entity, parent: database.schema.parent)
        else { return nil }
        let mapped = Set(mapping.keyPaths.compactMap(\.steps.first))
        // A key written as digits is an integer key, unless the table keeps it as text.
        guard let row = try database.row(table: found.table, key: RecordKey(key, integer: true)) ?? database.row(table: found.table, key: .text(key))
        else { return nil }
        guard mappings.mapping(for: row.entity, parent: database.schema.parent)?.entity == mapping.entity else { return nil }
        self.source = mappings.source
        self.entity = row.entity
        self.key = key
        let described = database.schema.entities[row.entity] ?? found
        // A to-one relationship's foreign-key column is shown once, as the relationship.
        let foreignKeys = Set(described.relationships.filter { mapped.contains($0.key) }.compactMap { _, link -> String? in
            if case .toOne(let column, _, _) = link { return column }
            return nil
        })
        attributes = described.attributes.keys.filter(mapped.contains).sorted().compactMap { name in
            guard let column = described.attributes[name], !foreignKeys.contains(column) else { return nil }
            guard let index = database.columnIndex(column, in: row.table) else { return nil }
            return (name, row.values[index], described.types[name])
        }
        var related: [(String, String, [String], Bool)] = []
        // A plain table's foreign key answers to two names (`maker_id` and `maker`): one entry.
        var listedColumns = Set<String>()
        for name in described.relationships.keys.filter(mapped.contains).sorted() {
            guard let link = described.relationships[name] else { continue }
            if case .toOne(let column, _, _) = link, !listedColumns.insert(column).inserted { continue }
            let keys: [RecordKey] = link.isToMany
                ? try database.members(link, owner: row.key, limit: Self.relatedLimit) : try database.target(of: row, link).map { [$0] } ?? []
            related.append((name, link.destination, keys.map(\.description), link.isToMany))
        }
        relationships = related.map { (name: $0.0, entity: $0.1, keys: $0.2, toMany: $0.3) }
    }

    public var json: JSONValue {
        .object(JSONObject([
            ("source", .string(source)), ("entity", .string(entity)), ("key", .string(key)),
            ("attributes", .object(JSONObject(attributes.map { attribute in
                (attribute.name, Self.value(attribute.value, type: attribute.type))
            }))),
            ("relationships", .object(JSONObject(relationships.map { relationship in
                (relationship.name, .object(JSONObject([
                    ("entity", .string(relationship.entity)), ("toMany", .bool(relationship.toMany)),
                    ("keys", .array(relationship.keys.map(JSONValue.string))),
                ])))
            }))),
        ]))
    }

    public static func value(_ value: RecordValue, type: DataModel.AttributeType?) -> JSONValue {
        switch value {
        case .null: return .null
        case .blob(let count): return .object(JSONObject([("bytes", JSONValue(count))]))
        case .text(let text): return .string(text)
        case .integer(let number):
            if type == .boolean { return .bool(number != 0) }
            if type == .date { return value.text(as: type).map(JSONValue.string) ?? .null }
            return JSONValue(Int(number))
        case .real(let number):
            if type == .date { return value.text(as: type).map(JSONValue.string) ?? .null }
            return number.isFinite ? JSONValue(number) : .null
        }
    }
}
