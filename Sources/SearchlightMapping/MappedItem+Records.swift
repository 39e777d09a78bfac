#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ItemModel
import JSON

extension MappedItem {
    /// The item `mapping` makes of a record an app holds as a JSON object: attributes by
    /// name, a to-one relationship as an object, a to-many one as an array of objects — the
    /// key paths a mapping file reads (`{#company.name#}`, `{#projects.title#}`,
    /// `{#projects.@count#}`) as `ingest` reads them from the app's database.
    public static func draft(_ mapping: Mapping, record object: JSONObject, reference: RecordReference? = nil,
                             now: Date = Date()) throws -> SearchableItem {
        try draft(mapping, record: reference, now: now) { JSONObjectPaths.text(of: $0, in: object) }
    }

    /// The item `mapping` makes of any `Encodable` record (a Codable model of the app's,
    /// its dates written as ISO 8601), read as ``draft(_:record:reference:now:)`` reads a
    /// JSON object.
    public static func draft(_ mapping: Mapping, encoding record: some Encodable, reference: RecordReference? = nil,
                             now: Date = Date()) throws -> SearchableItem {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let bytes = [UInt8](try encoder.encode(record))
        guard let object = try JSONParser.parse(bytes: bytes).objectValue else {
            throw Invalid(detail: "a record must encode as a JSON object, not a list or a single value")
        }
        return try draft(mapping, record: object, reference: reference, now: now)
    }
}
