import JSON

/// The app-database record an ingested item was made from (`searchlight ingest`): which
/// source, which entity, which primary key. What `objectFromUserActivity` needs to lead a
/// tapped result back to its record; shown in search results as `"source": {…}`.
public struct RecordReference: Sendable, Hashable {
    /// The mapping file's `source` name (`hr`).
    public var name: String
    /// The entity (`Employee`) or table the record is in.
    public var entity: String
    /// The primary key as text (`Z_PK` of a Core Data store, the table's key otherwise).
    public var key: String

    /// What one reference may hold.
    public enum Limits {
        public static let nameBytes = 64
        public static let entityBytes = 128
        public static let keyBytes = 512
    }

    public init(name: String, entity: String, key: String) {
        self.name = name
        self.entity = entity
        self.key = key
    }

    public var json: JSONValue {
        .object(JSONObject([("name", .string(name)), ("entity", .string(entity)), ("key", .string(key))]))
    }

    /// Reads ``json`` back; nil when a member is missing or longer than its limit.
    public init?(json: JSONValue) {
        guard let name = json["name"]?.stringValue, let entity = json["entity"]?.stringValue, let key = json["key"]?.stringValue,
            (1...Limits.nameBytes).contains(name.utf8.count), (1...Limits.entityBytes).contains(entity.utf8.count),
            (1...Limits.keyBytes).contains(key.utf8.count)
        else { return nil }
        self.init(name: name, entity: entity, key: key)
    }

    /// Reads a pushed `source` member, with a field error naming what is wrong.
    static func pushed(_ reader: FieldReader) throws(FieldError) -> RecordReference {
        try reader.rejectUnknown(["name", "entity", "key"])
        return RecordReference(
            name: try reader.requiredString("name", maximumBytes: Limits.nameBytes),
            entity: try reader.requiredString("entity", maximumBytes: Limits.entityBytes),
            key: try reader.requiredString("key", maximumBytes: Limits.keyBytes))
    }
}
