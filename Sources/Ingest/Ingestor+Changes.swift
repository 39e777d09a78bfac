import TextUtilities

/// Finding what changed (one scan per tracked table and join table) and which mapped rows
/// that affects (walking key paths backwards from each changed row).
extension Ingestor {
    func scanChanges(full: Bool) throws -> ChangeSet {
        var changes = ChangeSet()
        let source = mappings.source
        var scanned = 0
        let rows = progress == nil ? nil : try plan.trackedTables.reduce(0) { $0 + (try database.rowCount(table: $1)) }
        let blank = IngestReport(source: source)
        defer { tell(.scanning, done: scanned, total: scanned, report: blank) }
        for tableName in plan.trackedTables {
            guard let table = database.schema.tables[tableName] else { continue }
            var old = try state.versions(source: source, table: tableName)
            var found = ChangeSet.TableChanges()
            var versions: [RecordKey: IngestState.Version?] = [:]
            let links = plan.linkColumns[tableName] ?? []
            let visit = { [self] (key: RecordKey, version: IngestState.Version) in
                found.rows += 1
                scanned += 1
                if scanned % Self.progressEvery == 0 { tell(.scanning, done: scanned, total: rows, report: blank) }
                if let previous = old.removeValue(forKey: key) {
                    guard previous != version else { return }
                    found.changed.append(key)
                    found.old[key] = previous
                } else {
                    found.added.append(key)
                }
                versions[key] = version
            }
            if let versionColumn = table.versionColumn {
                try database.scan(table: tableName, columns: [versionColumn] + links) { key, values in
                    let version: Int64 = if case .integer(let number) = values[0] { number } else { 0 }
                    visit(key, IngestState.Version(version: version, links: values.dropFirst().map(Self.linkKey)))
                }
            } else {
                let indexes = links.compactMap { database.columnIndex($0, in: tableName) }
                try database.scan(table: tableName) { row in
                    var digest = FNV1a()
                    for value in row.values { value.hash(into: &digest) }
                    visit(row.key, IngestState.Version(version: digest.signed, links: indexes.map { Self.linkKey(row.values[$0]) }))
                }
            }
            for (key, previous) in old {
                found.deleted.append(key)
                found.old[key] = previous
                versions[key] = .some(nil)
            }
            changes.tables[tableName] = found
            changes.outcome.versions[tableName] = versions
        }
        for joinTable in plan.joinTables {
            guard let columns = joinColumns(joinTable) else { continue }
            let current = Set(try database.pairs(table: joinTable, columns.0, columns.1).map { IngestState.Pair(a: $0.0, b: $0.1) })
            let previous = try state.pairs(source: source, name: joinTable)
            let added = Array(current.subtracting(previous))
            let removed = Array(previous.subtracting(current))
            changes.outcome.addedPairs[joinTable] = added
            changes.outcome.removedPairs[joinTable] = removed
        }
        return changes
    }

    /// A join table's two key columns, in a fixed order (the first link that names it).
    func joinColumns(_ table: String) -> (String, String)? {
        for entity in database.schema.entities.values.sorted(by: { $0.name < $1.name }) {
            for link in entity.relationships.values {
                if case .toManyJoin(_, let name, let own, let other) = link, name == table { return own < other ? (own, other) : (other, own) }
            }
        }
        return nil
    }

    static func linkKey(_ value: RecordValue) -> RecordKey? {
        switch value {
        case .integer(let number): .integer(number)
        case .text(let text): .text(text)
        default: nil
        }
    }

    /// The mapped rows of `table` whose items may have changed: their own changes, and the
    /// rows whose key paths reach a changed, new or deleted record.
    func affectedRoots(table: String, changes: ChangeSet) throws -> Set<RecordKey> {
        var roots = Set(changes.tables[table]?.touched ?? [])
        for hops in plan.chains[table] ?? [] {
            for (index, hop) in hops.enumerated() {
                guard let destination = database.table(of: hop.link.destination) else { continue }
                var seeds = changes.tables[destination]?.touched ?? []
                if case .toManyJoin(_, let joinTable, let own, _) = hop.link, let columns = joinColumns(joinTable) {
                    let moved = (changes.addedPairs[joinTable] ?? []) + (changes.removedPairs[joinTable] ?? [])
                    // The pair's own side is the owner at this hop; the other side a member.
                    let ownFirst = columns.0 == own
                    seeds += moved.map { ownFirst ? $0.b : $0.a }
                    roots.formUnion(try walkBack(Set(moved.map { ownFirst ? $0.a : $0.b }), through: hops[..<index], changes: changes))
                }
                if seeds.isEmpty { continue }
                roots.formUnion(try walkBack(Set(seeds), through: hops[...index], changes: changes))
            }
        }
        return roots
    }

    /// From keys at the end of `hops` back to the keys at their start.
    private func walkBack(_ keys: Set<RecordKey>, through hops: ArraySlice<ResolvedPath.Hop>, changes: ChangeSet) throws -> Set<RecordKey> {
        var current = keys
        for hop in hops.reversed() {
            if current.isEmpty { return [] }
            guard let fromTable = database.table(of: hop.from), let destination = database.table(of: hop.link.destination) else { return [] }
            let list = Array(current)
            var previous = Set<RecordKey>()
            switch hop.link {
            case .toOne(let column, _, let targetColumn):
                let values = try targetColumn.map { try database.values(table: destination, column: $0, keys: list) } ?? list
                previous.formUnion(try database.keys(table: fromTable, where: column, in: values))
            case .toManyInverse(_, let column):
                previous.formUnion(try database.values(table: destination, column: column, keys: list))
                if let index = plan.linkColumns[destination]?.firstIndex(of: column), let old = changes.tables[destination]?.old {
                    for key in list { if let owner = old[key]?.links[safe: index] ?? nil { previous.insert(owner) } }
                }
            case .toManyJoin(_, let joinTable, let own, let other):
                previous.formUnion(try database.keys(joinTable: joinTable, own: own, other: other, in: list))
                if let columns = joinColumns(joinTable) {
                    let ownFirst = columns.0 == own
                    for pair in changes.removedPairs[joinTable] ?? [] where current.contains(ownFirst ? pair.b : pair.a) {
                        previous.insert(ownFirst ? pair.a : pair.b)
                    }
                }
            }
            current = previous
        }
        return current
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
