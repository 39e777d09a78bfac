/// A mapping file that cannot be used, naming the file, the mapping and the key path, so
/// it fails when it is loaded (exit 64) and never silently per record.
public struct MappingError: Error, Sendable, CustomStringConvertible {
    public var file: String
    /// `mappings[0] (Employee)`, or nil for the file as a whole.
    public var mapping: String?
    /// The key path or field at fault (`{#company.nme#}`, `titlePattern`).
    public var location: String?
    public var problem: String

    public init(file: String, mapping: String? = nil, location: String? = nil, _ problem: String) {
        self.file = file
        self.mapping = mapping
        self.location = location
        self.problem = problem
    }

    public var description: String {
        ([file] + [mapping, location].compactMap { $0 }).joined(separator: ": ") + ": " + problem
    }
}
