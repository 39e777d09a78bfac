import ItemMapping

/// Evaluating a resolved key path from a record, as key-value coding would: to-one
/// relationships lead to one record, to-many ones to their members (a value read through
/// them is the members' values joined with ", "), and an aggregate reduces the members.
extension SourceDatabase {
    /// The text a template inserts for `path` read from `root`; nil when there is no value.
    /// Every related record read is taken off `budget`; past it, ``RelatedReadBudget/Spent``.
    public func text(of path: ResolvedPath, from root: Row, budget: inout RelatedReadBudget) throws -> String? {
        // The common case: an attribute of the record itself.
        if path.hops.isEmpty, let attribute = path.attribute, let index = path.attributeIndex, root.values.indices.contains(index) {
            return root.values[index].text(as: attribute.type)
        }
        var rows = [root]
        for (index, hop) in path.hops.enumerated() {
            let isLast = index == path.hops.count - 1
            guard let destinationTable = table(of: hop.link.destination) else { return nil }
            // Each record once per hop, however many ways it is reached.
            var keys: [RecordKey] = []
            var seen = Set<RecordKey>()
            for row in rows {
                if hop.link.isToMany {
                    for key in try members(hop.link, owner: row.key) where seen.insert(key).inserted { keys.append(key) }
                } else if let key = try target(of: row, hop.link), seen.insert(key).inserted {
                    keys.append(key)
                }
                if keys.count >= Self.memberLimit { break }
                // Past the item's budget the hop stops at once, not after gathering every member.
                if keys.count > budget.left { throw RelatedReadBudget.Spent() }
            }
            guard budget.spend(keys.count) else { throw RelatedReadBudget.Spent() }
            if isLast, path.aggregate == .count { return String(keys.count) }
            if isLast, path.aggregate == nil, let attribute = path.attribute {
                return try joinedText(of: attribute, keys: keys.prefix(Self.memberLimit), table: destinationTable)
            }
            rows = try keys.prefix(Self.memberLimit).compactMap { try row(table: destinationTable, key: $0) }
        }
        if let aggregate = path.aggregate {
            guard let attribute = path.memberAttribute else { return nil }
            var numbers: [Double] = []
            var texts: [String] = []
            for member in rows {
                var current: Row? = member
                guard budget.spend(path.memberHops.count) else { throw RelatedReadBudget.Spent() }
                for hop in path.memberHops {
                    guard let row = current, let key = try target(of: row, hop.link), let destinationTable = table(of: hop.link.destination) else {
                        current = nil
                        break
                    }
                    current = try self.row(table: destinationTable, key: key)
                }
                guard let row = current, let index = columnIndex(attribute.column, in: row.table) else { continue }
                let value = row.values[index]
                if let number = value.number { numbers.append(number) } else if let text = value.text(as: attribute.type) { texts.append(text) }
            }
            let type = attribute.type
            return aggregate.reduce(numbers: numbers, texts: texts, extremum: { RecordValue.real($0).text(as: type == .integer ? nil : type) })
        }
        guard let attribute = path.attribute else { return nil }
        let texts = rows.compactMap { row -> String? in
            guard let index = columnIndex(attribute.column, in: row.table) else { return nil }
            return row.values[index].text(as: attribute.type)
        }
        if texts.isEmpty { return nil }
        return texts.count == 1 ? texts[0] : texts.joined(separator: ItemRenderer.listSeparator)
    }

    /// The attribute's values in the rows with `keys`, joined with ", ", read only until the
    /// text is as long as any item field can hold (``RecordValue/maximumTextBytes``).
    private func joinedText(of attribute: (entity: String, column: String, type: DataModel.AttributeType?), keys: ArraySlice<RecordKey>,
                            table: String) throws -> String? {
        var texts: [String] = []
        var bytes = 0
        for key in keys {
            guard let row = try row(table: table, key: key), let index = columnIndex(attribute.column, in: row.table),
                let text = row.values[index].text(as: attribute.type)
            else { continue }
            texts.append(text)
            bytes += text.utf8.count + 2
            if bytes >= RecordValue.maximumTextBytes { break }
        }
        if texts.isEmpty { return nil }
        return texts.count == 1 ? texts[0] : texts.joined(separator: ItemRenderer.listSeparator)
    }
}
