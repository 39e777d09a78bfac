/// An app's data model: entities with their attributes and relationships, as Core Data's
/// model editor describes them (`contents` inside an `.xcdatamodel`), or as inferred from a
/// store without one. Pure values.
public struct DataModel: Sendable {
    public enum AttributeType: String, Sendable {
        case text, integer, decimal, boolean, date, binary, other
    }

    public struct Attribute: Sendable {
        public var name: String
        public var type: AttributeType
    }

    public struct Relationship: Sendable {
        public var name: String
        public var destination: String
        public var toMany: Bool
        public var inverse: String?
    }

    public struct Entity: Sendable {
        public var name: String
        public var parent: String?
        public var attributes: [Attribute]
        public var relationships: [Relationship]
    }

    public var entities: [Entity]

    public init(entities: [Entity]) {
        self.entities = entities
    }

    public func entity(_ name: String) -> Entity? { entities.first { $0.name == name } }

    /// The entity and its ancestors, nearest first (a sub-entity inherits their properties).
    public func lineage(_ name: String) -> [Entity] {
        var chain: [Entity] = []
        var current = entity(name)
        while let found = current, chain.count < 32 {
            chain.append(found)
            current = found.parent.flatMap(entity)
        }
        return chain
    }

    public func attribute(_ name: String, of entity: String) -> Attribute? {
        for ancestor in lineage(entity) { if let found = ancestor.attributes.first(where: { $0.name == name }) { return found } }
        return nil
    }

    public func relationship(_ name: String, of entity: String) -> Relationship? {
        for ancestor in lineage(entity) { if let found = ancestor.relationships.first(where: { $0.name == name }) { return found } }
        return nil
    }
}
