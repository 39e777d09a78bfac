/// Which tables and links an ingest run watches, derived from the bound mappings. Pure.
///
/// - mapped tables hold the records that become items;
/// - tracked tables are those plus every table a key path reads, whose changes can change
///   an item;
/// - link columns are the to-one columns that to-many relationships follow backwards: their
///   old values are kept so that a member leaving (or deleted) still finds its old owner;
/// - join tables are diffed as sets of pairs.
struct IngestPlan {
    var mappedTables: [String] = []
    var trackedTables: [String] = []
    var linkColumns: [String: [String]] = [:]
    var joinTables: [String] = []
    /// Per mapped table, the hop chains (from the mapping's entity) of every key path.
    var chains: [String: [[ResolvedPath.Hop]]] = [:]

    init(mappings: [BoundMapping], schema: SourceSchema) {
        var mapped = Set<String>()
        var tracked = Set<String>()
        var links: [String: Set<String>] = [:]
        var joins = Set<String>()
        for bound in mappings {
            guard let table = schema.entities[bound.mapping.entity]?.table else { continue }
            mapped.insert(table)
            tracked.insert(table)
            for path in bound.paths.values {
                let hops = path.allHops
                if !hops.isEmpty { chains[table, default: []].append(hops) }
                for hop in hops {
                    if let destination = schema.entities[hop.link.destination]?.table { tracked.insert(destination) }
                    switch hop.link {
                    case .toManyInverse(let destination, let column):
                        if let destinationTable = schema.entities[destination]?.table { links[destinationTable, default: []].insert(column) }
                    case .toManyJoin(_, let table, _, _):
                        joins.insert(table)
                    case .toOne:
                        break
                    }
                }
            }
        }
        mappedTables = mapped.sorted()
        trackedTables = tracked.sorted()
        linkColumns = links.mapValues { $0.sorted() }
        joinTables = joins.sorted()
    }
}
