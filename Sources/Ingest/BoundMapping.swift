import ItemMapping
import TextUtilities
/// A key path resolved against a ``SourceSchema``: the relationships it follows, and the
/// attribute it reads at the end (or the aggregate it computes over the members).
public struct ResolvedPath: Sendable {
    public struct Hop: Sendable {
        public var name: String
        public var from: String
        public var link: SourceSchema.Link
    }

    public var hops: [Hop]
    /// The attribute read at the end of ``hops`` (none for `@count`), with its column's
    /// position in the rows of its table.
    public var attribute: (entity: String, column: String, type: DataModel.AttributeType?)?
    var attributeIndex: Int?
    public var aggregate: RecordKeyPath.Aggregate?
    /// For `@sum.x` and the like: the to-one hops and the attribute read on each member.
    public var memberHops: [Hop]
    public var memberAttribute: (entity: String, column: String, type: DataModel.AttributeType?)?

    /// Every hop, in order, members' included: the records an item reading this path depends on.
    public var allHops: [Hop] { hops + memberHops }
}

/// A mapping whose key paths all resolve in a source: made by ``MappingSet/bind(to:file:)``,
/// which is where a wrong name fails (exit 64), before any record is read. A class: it is
/// handed to every record rendered, and copying its tables each time showed in profiles.
public final class BoundMapping: Sendable {
    public let mapping: Mapping
    public let paths: [RecordKeyPath: ResolvedPath]

    init(mapping: Mapping, paths: [RecordKeyPath: ResolvedPath]) {
        self.mapping = mapping
        self.paths = paths
    }
}

extension MappingSet {
    /// Resolves every key path of every mapping against `schema`.
    public func bind(to schema: SourceSchema, file: String) throws(MappingError) -> [BoundMapping] {
        var bound: [BoundMapping] = []
        for (index, mapping) in mappings.enumerated() {
            let name = "mappings[\(index)] (\(mapping.entity))"
            guard schema.entities[mapping.entity] != nil else {
                let known = schema.entities.keys.sorted().prefix(20).joined(separator: ", ")
                throw MappingError(file: file, mapping: name, "the source has no entity \(mapping.entity) (it has \(known))")
            }
            var paths: [RecordKeyPath: ResolvedPath] = [:]
            for path in mapping.keyPaths {
                do {
                    paths[path] = try Self.resolve(path, from: mapping.entity, in: schema)
                } catch {
                    let patterns = mapping.patterns(reading: path)
                    let held = patterns.isEmpty ? "" : " in " + patterns.joined(separator: ", ")
                    throw MappingError(file: file, mapping: name, location: "{#\(path)#}\(held)", error.problem)
                }
            }
            bound.append(BoundMapping(mapping: mapping, paths: paths))
        }
        return bound
    }

    struct ResolveError: Error { var problem: String }

    /// Relationships a key path may follow, and to-many ones among them: each to-many hop
    /// multiplies the records one item reads, so a long alternating path
    /// (`employees.company.employees…`) would read the whole store for every item.
    public static let maximumHops = 4
    public static let maximumToManyHops = 2

    static func resolve(_ path: RecordKeyPath, from start: String, in schema: SourceSchema) throws(ResolveError) -> ResolvedPath {
        var (hops, attribute) = try walk(path.steps, from: start, in: schema)
        let toMany = hops.contains { $0.link.isToMany }
        guard hops.count <= maximumHops, hops.filter(\.link.isToMany).count <= maximumToManyHops else {
            throw ResolveError(problem: "follows \(hops.count) relationships, \(hops.filter(\.link.isToMany).count) of them to-many; "
                + "a key path may follow at most \(maximumHops), at most \(maximumToManyHops) to-many")
        }
        guard let aggregate = path.aggregate else {
            guard attribute != nil else {
                throw ResolveError(problem: "ends at the relationship '\(hops.last?.name ?? "")'; name an attribute of \(hops.last?.link.destination ?? start) or use @count")
            }
            var resolved = ResolvedPath(hops: hops, attribute: attribute, aggregate: nil, memberHops: [], memberAttribute: nil)
            if let attribute, let table = schema.entities[attribute.entity].flatMap({ schema.tables[$0.table] }) {
                resolved.attributeIndex = table.columns.firstIndex(of: attribute.column)
            }
            return resolved
        }
        guard attribute == nil, toMany else {
            throw ResolveError(problem: "\(aggregate.rawValue) needs a to-many relationship before it")
        }
        guard aggregate != .count else { return ResolvedPath(hops: hops, attribute: nil, aggregate: .count, memberHops: [], memberAttribute: nil) }
        let memberEntity = hops.last!.link.destination
        let (memberHops, memberAttribute) = try walk(path.memberSteps, from: memberEntity, in: schema)
        guard memberAttribute != nil, !memberHops.contains(where: { $0.link.isToMany }) else {
            throw ResolveError(problem: "after \(aggregate.rawValue), name an attribute of \(memberEntity) (through to-one relationships only)")
        }
        attribute = nil
        return ResolvedPath(hops: hops, attribute: nil, aggregate: aggregate, memberHops: memberHops, memberAttribute: memberAttribute)
    }

    private static func walk(_ steps: [String], from start: String, in schema: SourceSchema) throws(ResolveError)
        -> ([ResolvedPath.Hop], (entity: String, column: String, type: DataModel.AttributeType?)?)
    {
        var entity = start
        var hops: [ResolvedPath.Hop] = []
        for (index, step) in steps.enumerated() {
            if let link = schema.relationship(step, of: entity) {
                hops.append(ResolvedPath.Hop(name: step, from: entity, link: link))
                entity = link.destination
                continue
            }
            if let attribute = schema.attribute(step, of: entity) {
                guard index == steps.count - 1 else {
                    throw ResolveError(problem: "'\(step)' is an attribute of \(entity), not a relationship to follow")
                }
                return (hops, (entity, attribute.column, attribute.type))
            }
            let relationships = schema.entities[entity]?.relationships.keys.sorted() ?? []
            let attributes = schema.entities[entity]?.attributes.keys.sorted() ?? []
            let suggestion = Suggestion.nearest(to: step, in: attributes + relationships).map { " — did you mean '\($0)'?" } ?? ""
            throw ResolveError(problem: "\(entity) has no attribute or relationship '\(step)'\(suggestion) (attributes: \(attributes.prefix(30).joined(separator: ", "))"
                + (relationships.isEmpty ? ")" : "; relationships: \(relationships.prefix(30).joined(separator: ", ")))")
                + (schema.kind == .coreData && !schema.hasModel
                    ? "; a Core Data store read without its data model knows only to-one relationships: give the model with --model (the app's .xcdatamodeld or .momd) to follow '\(step)' if it is a to-many one"
                    : ""))
        }
        return (hops, nil)
    }
}
