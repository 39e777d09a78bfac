import ItemModel

/// How the records of one entity become search items: WACoreDataSpotlight's simple mapping
/// (`titlePattern`, `contentDescriptionPattern`, `keywordsPatterns`, `thumbnailPattern`) and
/// custom mapping (`attributeSet`, any item field) in one value, plus the apps that open an
/// item at its deep link. Built by ``MappingFile``; rendered by ``MappedItem``.
public struct Mapping: Sendable {
    /// An item field a mapping may set.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case title, contentDescription, thumbnailURL, webURL, expirationDate, rating, ratingScale, ratingCount, price, currency
        case phone, address, contentType, domainIdentifier, text, latitude, longitude
    }

    /// An app that opens the item (checked as a pushed app is when the file is loaded),
    /// with its deep link made from the record.
    public struct App: Sendable {
        public var target: AppTarget
        public var deepLink: Template?
    }

    /// The entity whose records this mapping turns into items (`Employee`, or a schema.org
    /// type such as `Recipe` for crawled pages).
    public var entity: String
    public var uniqueIdentifier: Template
    public var fields: [Field: Template]
    public var keywords: [Template]
    public var apps: [App]

    /// Every key path the mapping reads, for checking against a data model and for finding
    /// which records an item depends on.
    public var keyPaths: [RecordKeyPath] {
        var templates = [uniqueIdentifier] + keywords + apps.compactMap(\.deepLink)
        templates += Field.allCases.compactMap { fields[$0] }
        var seen = Set<RecordKeyPath>()
        return templates.flatMap(\.keyPaths).filter { seen.insert($0).inserted }
    }

    /// The patterns that read `path`, named as the file names them (`uniqueIdentifierPattern`,
    /// an item field such as `title`, `keywords`, `apps[0].deepLinkPattern`): where to fix it.
    public func patterns(reading path: RecordKeyPath) -> [String] {
        var names: [String] = []
        if uniqueIdentifier.keyPaths.contains(path) { names.append("uniqueIdentifierPattern") }
        names += Field.allCases.filter { fields[$0]?.keyPaths.contains(path) == true }.map(\.rawValue)
        if keywords.contains(where: { $0.keyPaths.contains(path) }) { names.append("keywords") }
        for (index, app) in apps.enumerated() where app.deepLink?.keyPaths.contains(path) == true {
            names.append("apps[\(index)].deepLinkPattern")
        }
        return names
    }
}

/// A mapping file: the source's name and its mappings.
public struct MappingSet: Sendable {
    /// Names the source in results (`"source": {"name": "hr", …}`) and in the ingest state.
    public var source: String
    public var mappings: [Mapping]
    /// A digest of the file's text: a changed mapping re-renders every item.
    public var digest: String

    /// The mapping for `entity`, or for its nearest ancestor that has one (`parents` gives an
    /// entity's parent), as a fetch of an entity includes its sub-entities.
    public func mapping(for entity: String, parent: (String) -> String?) -> Mapping? {
        var current: String? = entity
        var depth = 0
        while let name = current, depth < 32 {
            if let found = mappings.first(where: { $0.entity == name }) { return found }
            current = parent(name)
            depth += 1
        }
        return nil
    }
}
