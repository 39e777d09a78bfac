/// A place in a page's source, as an editor shows it: 1-based line and 1-based column in
/// characters (Unicode scalars) from the start of that line.
public struct SourceLocation: Sendable, Hashable {
    public var line: Int
    public var column: Int?

    public init(line: Int, column: Int? = nil) {
        self.line = line
        self.column = column
    }
}

extension PageMarkup {
    /// Where a `<meta>` tag sits, by its `name` or `property` (lowercased), in document order.
    public struct MetaTagLocation: Sendable, Hashable {
        public var key: String
        public var location: SourceLocation
    }

    /// The first `<meta>` whose name or property is `key` (any case).
    public func location(ofMeta key: String) -> SourceLocation? {
        let key = key.lowercased()
        return metaTagLocations.first { $0.key == key }?.location
    }

    /// The first `<meta>` whose name or property starts with `prefix` (any case).
    public func location(ofMetaPrefix prefix: String) -> SourceLocation? {
        let prefix = prefix.lowercased()
        return metaTagLocations.first { $0.key.hasPrefix(prefix) }?.location
    }
}
