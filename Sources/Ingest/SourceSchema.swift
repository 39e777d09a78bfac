import SQLite

/// Where each entity, attribute and relationship of a source lives in its SQLite file.
///
/// A Core Data store (it has `Z_PRIMARYKEY`): every entity is a row of `Z_PRIMARYKEY`
/// (`Z_ENT`, `Z_NAME`, `Z_SUPER`); a sub-entity shares its root's table `Z<ROOT>`, told
/// apart by `Z_ENT`; rows have `Z_PK`, `Z_ENT`, `Z_OPT` (bumped on every save) and a
/// `Z<NAME>` column per attribute and per to-one relationship (holding the target's
/// `Z_PK`); a to-many relationship is the inverse's to-one column on the other table, or a
/// join table `Z_<n><NAME>` with a `Z_<n><INVERSE>` column for each side's key. Names come
/// from the model when given; without it, attributes are the `Z` columns and a to-one
/// relationship is a column named after an entity.
///
/// A plain SQLite file: tables are entities, columns attributes, a declared foreign key
/// a to-one relationship (named by its column, and by the column without `_id`), and the
/// referencing table a to-many relationship of the referenced one (named by that table).
public struct SourceSchema: Sendable {
    public enum Kind: String, Sendable { case coreData = "core-data", plain }

    public struct Table: Sendable {
        public var name: String
        public var columns: [String]
        public var keyColumn: String
        /// `Z_OPT` in a Core Data store; nil where a row's version is a hash of its columns.
        public var versionColumn: String?
        /// `Z_ENT` in a Core Data store.
        public var entityColumn: String?
    }

    public enum Link: Sendable {
        /// A column of this entity's table holding the target's key (or `targetColumn`).
        case toOne(column: String, destination: String, targetColumn: String?)
        /// The members' table has `column` pointing back at this entity.
        case toManyInverse(destination: String, column: String)
        /// A join table: `ownColumn` holds this entity's keys, `otherColumn` the members'.
        case toManyJoin(destination: String, table: String, ownColumn: String, otherColumn: String)

        public var destination: String {
            switch self {
            case .toOne(_, let destination, _), .toManyInverse(let destination, _), .toManyJoin(let destination, _, _, _): destination
            }
        }

        public var isToMany: Bool {
            if case .toOne = self { return false }
            return true
        }
    }

    public struct Entity: Sendable {
        public var name: String
        public var parent: String?
        public var table: String
        /// `Z_ENT` values of this entity and its sub-entities (empty for plain tables).
        public var codes: [Int64]
        /// Attribute name → column.
        public var attributes: [String: String]
        public var types: [String: DataModel.AttributeType]
        public var relationships: [String: Link]
    }

    public var kind: Kind
    public var tables: [String: Table]
    public var entities: [String: Entity]
    /// `Z_ENT` → entity name.
    public var entityNames: [Int64: String]
    /// Read with the app's data model: a Core Data store's to-many relationships are known
    /// only from it.
    public var hasModel = false

    public func parent(of entity: String) -> String? { entities[entity]?.parent }

    /// An attribute of `entity` by its model name, or (without a model) case-insensitively.
    public func attribute(_ name: String, of entity: String) -> (column: String, type: DataModel.AttributeType?)? {
        guard let found = entities[entity] else { return nil }
        if let column = found.attributes[name] { return (column, found.types[name]) }
        let upper = name.uppercased()
        if let match = found.attributes.first(where: { $0.key.uppercased() == upper }) { return (match.value, found.types[match.key]) }
        return nil
    }

    public func relationship(_ name: String, of entity: String) -> Link? {
        guard let found = entities[entity] else { return nil }
        if let link = found.relationships[name] { return link }
        let upper = name.uppercased()
        return found.relationships.first { $0.key.uppercased() == upper }?.value
    }

    // MARK: reading a file

    public struct InspectError: Error, Sendable, CustomStringConvertible {
        public var problem: String
        public var description: String { problem }
    }

    public static func inspect(_ connection: SQLiteConnection, model: DataModel?) throws -> SourceSchema {
        var tables: [String: Table] = [:]
        let list = try connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try list.step() { if let name = list.string(0) { names.append(name) } }
        for name in names {
            let info = try connection.prepare("SELECT name, pk FROM pragma_table_info(?)")
            info.bind(1, name)
            var columns: [String] = []
            var keys: [String] = []
            while try info.step() {
                let column = info.string(0) ?? ""
                columns.append(column)
                if info.int(1) > 0 { keys.append(column) }
            }
            let key = keys.count == 1 ? keys[0] : "rowid"
            tables[name] = Table(name: name, columns: columns, keyColumn: key, versionColumn: nil, entityColumn: nil)
        }
        if tables["Z_PRIMARYKEY"] != nil {
            return try coreData(connection, tables: tables, model: model)
        }
        return try plain(connection, tables: tables, model: model)
    }

    private static func coreData(_ connection: SQLiteConnection, tables: [String: Table], model: DataModel?) throws -> SourceSchema {
        var tables = tables
        let rows = try connection.prepare("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY")
        var stored: [(code: Int64, name: String, parent: Int64)] = []
        while try rows.step() { stored.append((rows.int64(0), rows.string(1) ?? "", rows.int64(2))) }
        let byCode = Dictionary(stored.map { ($0.code, $0.name) }, uniquingKeysWith: { a, _ in a })
        var parents: [String: String] = [:]
        for entry in stored where entry.parent != 0 { parents[entry.name] = byCode[entry.parent] }
        func root(_ name: String) -> String {
            var current = name
            var depth = 0
            while let parent = parents[current], depth < 32 { current = parent; depth += 1 }
            return current
        }
        func family(_ name: String) -> [Int64] {
            stored.filter { entry in
                var current: String? = entry.name
                var depth = 0
                while let found = current, depth < 32 {
                    if found == name { return true }
                    current = parents[found]
                    depth += 1
                }
                return false
            }.map(\.code)
        }
        var entities: [String: Entity] = [:]
        let entityColumns = Set(stored.map { "Z" + $0.name.uppercased() })
        for entry in stored {
            let tableName = "Z" + root(entry.name).uppercased()
            guard var table = tables[tableName] else { continue }
            table.keyColumn = "Z_PK"
            table.versionColumn = table.columns.contains("Z_OPT") ? "Z_OPT" : nil
            table.entityColumn = table.columns.contains("Z_ENT") ? "Z_ENT" : nil
            tables[tableName] = table
            let columnSet = Set(table.columns)
            var attributes: [String: String] = [:]
            var types: [String: DataModel.AttributeType] = [:]
            var relationships: [String: Link] = [:]
            if let model, model.entity(entry.name) != nil {
                for ancestor in model.lineage(entry.name) {
                    for attribute in ancestor.attributes where attributes[attribute.name] == nil {
                        let column = "Z" + attribute.name.uppercased()
                        guard columnSet.contains(column) else { continue }
                        attributes[attribute.name] = column
                        types[attribute.name] = attribute.type
                    }
                    for relationship in ancestor.relationships where relationships[relationship.name] == nil {
                        if let link = coreDataLink(relationship, from: entry.name, model: model, tables: tables, root: root, columns: columnSet) {
                            relationships[relationship.name] = link
                        }
                    }
                }
            } else {
                for column in table.columns where column.hasPrefix("Z") && !column.hasPrefix("Z_") {
                    let name = String(column.dropFirst())
                    if name.first?.isNumber == true { continue }
                    if entityColumns.contains(column), let target = stored.first(where: { $0.name.uppercased() == name }) {
                        relationships[target.name] = .toOne(column: column, destination: target.name, targetColumn: nil)
                    } else {
                        attributes[name.lowercased()] = column
                    }
                }
            }
            entities[entry.name] = Entity(
                name: entry.name, parent: parents[entry.name], table: tableName, codes: family(entry.name), attributes: attributes,
                types: types, relationships: relationships)
        }
        return SourceSchema(kind: .coreData, tables: tables, entities: entities, entityNames: byCode, hasModel: model != nil)
    }

    /// Where a modelled relationship lives in a Core Data store.
    private static func coreDataLink(
        _ relationship: DataModel.Relationship, from entity: String, model: DataModel, tables: [String: Table], root: (String) -> String,
        columns: Set<String>
    ) -> Link? {
        let name = relationship.name.uppercased()
        if !relationship.toMany {
            let column = "Z" + name
            return columns.contains(column) ? .toOne(column: column, destination: relationship.destination, targetColumn: nil) : nil
        }
        let inverse = relationship.inverse.flatMap { model.relationship($0, of: relationship.destination) }
        if let inverse, !inverse.toMany {
            let column = "Z" + inverse.name.uppercased()
            guard tables["Z" + root(relationship.destination).uppercased()]?.columns.contains(column) == true else { return nil }
            return .toManyInverse(destination: relationship.destination, column: column)
        }
        // Many-to-many: a join table `Z_<n><NAME>` (or named after the inverse), whose
        // `Z_<n><NAME>` column holds the members' keys and `Z_<n><INVERSE>` the owners'.
        let inverseName = (relationship.inverse ?? "").uppercased()
        func suffix(_ text: String) -> String? {
            guard text.hasPrefix("Z_") else { return nil }
            let rest = text.dropFirst(2)
            let digits = rest.prefix { $0.isNumber }
            return digits.isEmpty ? nil : String(rest.dropFirst(digits.count))
        }
        for table in tables.values.sorted(by: { $0.name < $1.name }) {
            guard let tableSuffix = suffix(table.name), tableSuffix == name || tableSuffix == inverseName else { continue }
            let other = table.columns.first { suffix($0) == name }
            let own = table.columns.first { column in column != other && (suffix(column) == inverseName || (!inverseName.isEmpty ? false : suffix(column) != nil)) }
            if let own, let other {
                return .toManyJoin(destination: relationship.destination, table: table.name, ownColumn: own, otherColumn: other)
            }
        }
        return nil
    }

    private static func plain(_ connection: SQLiteConnection, tables: [String: Table], model: DataModel?) throws -> SourceSchema {
        var entities: [String: Entity] = [:]
        for table in tables.values {
            entities[table.name] = Entity(
                name: table.name, parent: nil, table: table.name, codes: [], attributes: Dictionary(uniqueKeysWithValues: table.columns.map { ($0, $0) }),
                types: [:], relationships: [:])
        }
        for table in tables.values {
            let keys = try connection.prepare("SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?)")
            keys.bind(1, table.name)
            while try keys.step() {
                guard let target = keys.string(0), let column = keys.string(1), let targetTable = tables[target] ?? tables.values.first(where: {
                    $0.name.lowercased() == target.lowercased()
                }) else { continue }
                let targetColumn = keys.string(2).flatMap { $0 == targetTable.keyColumn ? nil : $0 }
                let link = Link.toOne(column: column, destination: targetTable.name, targetColumn: targetColumn)
                entities[table.name]?.relationships[column] = link
                for suffix in ["_id", "_ID", "Id", "ID"] where column.hasSuffix(suffix) && column.count > suffix.count {
                    entities[table.name]?.relationships[String(column.dropLast(suffix.count))] = link
                }
                // A key on a column other than the target's key reads one way only.
                if targetColumn == nil, entities[targetTable.name]?.relationships[table.name] == nil {
                    entities[targetTable.name]?.relationships[table.name] = .toManyInverse(destination: table.name, column: column)
                }
            }
        }
        return SourceSchema(kind: .plain, tables: tables, entities: entities, entityNames: [:], hasModel: model != nil)
    }
}
