#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ItemModel
import JSON
import TextUtilities

/// Reads a mapping file (JSON) into a ``MappingSet``, checking its shape; key paths are
/// checked against a data model by ``MappingSet/validate(against:file:)``.
///
/// ```json
/// {"source": "hr",
///  "mappings": [{"entity": "Employee",
///                "uniqueIdentifierPattern": "employee_{#firstName#}_{#lastName#}",
///                "titlePattern": "{#firstName#} {#lastName#}", …}]}
/// ```
public enum MappingFile {
    public static let maximumBytes = 1 << 20
    public static let maximumMappings = 256
    public static let maximumPatternBytes = 4096
    public static let maximumKeywords = 64

    private static let mappingKeys: Set<String> = [
        "entity", "uniqueIdentifierPattern", "titlePattern", "contentDescriptionPattern", "keywordsPatterns", "thumbnailPattern",
        "webURLPattern", "apps", "attributeSet",
    ]
    private static let appKeys: Set<String> = ["platform", "appStoreId", "bundleId", "package", "name", "deepLinkPattern"]
    /// `attributeSet` members: the item fields, with CoreSpotlight's `phoneNumbers`-style
    /// alias `telephone` for `phone`.
    private static let attributeAliases: [String: Mapping.Field] = ["telephone": .phone, "thumbnail": .thumbnailURL]

    /// Reads the file at `path`.
    public static func load(path: String) throws(MappingError) -> MappingSet {
        guard let data = FileManager.default.contents(atPath: path) else { throw MappingError(file: path, "cannot be read") }
        guard data.count <= maximumBytes else { throw MappingError(file: path, "larger than \(maximumBytes) bytes") }
        return try parse(Array(data), file: path)
    }

    /// Reads a mapping file's bytes (`file` names it in errors); throws for any rule it breaks.
    public static func parse(_ bytes: [UInt8], file: String) throws(MappingError) -> MappingSet {
        let root: JSONValue
        do {
            root = try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in try JSONParser.parse(bytes: buffer) }
        } catch {
            throw MappingError(file: file, "not JSON: \(error)")
        }
        var digest = FNV1a()
        digest.add(bytes)
        do {
            let reader = try FieldReader(value: root, path: "file")
            try reader.rejectUnknown(["source", "mappings"])
            let source = try reader.requiredString("source", maximumBytes: 64)
            guard source.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F || byte == 0x2E
            })
            else { throw MappingError(file: file, location: "source", "letters, digits, '-', '_' and '.' only") }
            guard let list = try reader.array("mappings", maximumCount: maximumMappings), !list.isEmpty else {
                throw MappingError(file: file, location: "mappings", "at least one mapping is needed")
            }
            var mappings: [Mapping] = []
            for (index, value) in list.enumerated() {
                let mapping = try self.mapping(value, index: index, file: file)
                if mappings.contains(where: { $0.entity == mapping.entity }) {
                    throw MappingError(file: file, mapping: "mappings[\(index)] (\(mapping.entity))", "a second mapping for the same entity")
                }
                mappings.append(mapping)
            }
            return MappingSet(source: source, mappings: mappings, digest: String(digest.value, radix: 16))
        } catch let error as FieldError {
            throw MappingError(file: file, location: error.path.hasPrefix("file.") ? String(error.path.dropFirst(5)) : error.path, error.problem)
        } catch let error as MappingError {
            throw error
        } catch {
            throw MappingError(file: file, "\(error)")
        }
    }

    private static func mapping(_ value: JSONValue, index: Int, file: String) throws -> Mapping {
        let reader = try FieldReader(value: value, path: "mappings[\(index)]")
        try reader.rejectUnknown(mappingKeys)
        try reader.rejectDuplicates()
        let entity = try reader.requiredString("entity", maximumBytes: 128)
        let name = "mappings[\(index)] (\(entity))"
        func template(_ text: String, _ location: String) throws -> Template {
            guard text.utf8.count <= maximumPatternBytes else { throw MappingError(file: file, mapping: name, location: location, "longer than \(maximumPatternBytes) bytes") }
            do {
                return try Template(parsing: text)
            } catch {
                throw MappingError(file: file, mapping: name, location: location, error.description)
            }
        }
        func optional(_ key: String) throws -> Template? {
            try reader.string(key, maximumBytes: maximumPatternBytes, multiline: true).map { try template($0, key) }
        }
        let identifier = try template(try reader.requiredString("uniqueIdentifierPattern", maximumBytes: maximumPatternBytes), "uniqueIdentifierPattern")
        var fields: [Mapping.Field: Template] = [:]
        fields[.title] = try optional("titlePattern")
        fields[.contentDescription] = try optional("contentDescriptionPattern")
        fields[.thumbnailURL] = try optional("thumbnailPattern")
        fields[.webURL] = try optional("webURLPattern")
        var keywords = try reader.strings("keywordsPatterns", maximumCount: maximumKeywords, maximumBytes: maximumPatternBytes)
            .map { try template($0, "keywordsPatterns") }
        if let set = reader.object["attributeSet"] {
            let attributes = try FieldReader(value: set, path: reader.path + ".attributeSet")
            try attributes.rejectDuplicates()
            for key in attributes.object.keys {
                if key == "keywords" {
                    keywords = try attributes.strings("keywords", maximumCount: maximumKeywords, maximumBytes: maximumPatternBytes)
                        .map { try template($0, "attributeSet.keywords") }
                    continue
                }
                guard let field = Mapping.Field(rawValue: key) ?? attributeAliases[key] else {
                    let known = (Mapping.Field.allCases.map(\.rawValue) + ["keywords"]).joined(separator: ", ")
                    throw MappingError(file: file, mapping: name, location: "attributeSet.\(key)", "not an item field (\(known))")
                }
                fields[field] = try template(try attributes.string(key, maximumBytes: maximumPatternBytes, multiline: true) ?? "", "attributeSet.\(key)")
            }
        }
        guard fields[.title] != nil else {
            throw MappingError(file: file, mapping: name, location: "titlePattern", "required (or attributeSet.title)")
        }
        var apps: [Mapping.App] = []
        for (appIndex, value) in (try reader.array("apps", maximumCount: 8) ?? []).enumerated() {
            let app = try FieldReader(value: value, path: "\(reader.path).apps[\(appIndex)]")
            try app.rejectUnknown(appKeys)
            let platform = try app.requiredString("platform", maximumBytes: 16)
            guard platform == "ios" || platform == "android" else {
                throw MappingError(file: file, mapping: name, location: "apps[\(appIndex)].platform", "must be \"ios\" or \"android\"")
            }
            var fields: [(String, JSONValue)] = [("platform", .string(platform))]
            for key in ["appStoreId", "bundleId", "package", "name"] {
                if let text = try app.string(key, maximumBytes: 256) { fields.append((key, .string(text))) }
            }
            let target = try AppTarget(pushed: .object(JSONObject(fields)), path: "\(reader.path).apps[\(appIndex)]")
            apps.append(Mapping.App(
                target: target,
                deepLink: try app.string("deepLinkPattern", maximumBytes: maximumPatternBytes).map { try template($0, "apps[\(appIndex)].deepLinkPattern") }))
        }
        return Mapping(entity: entity, uniqueIdentifier: identifier, fields: fields, keywords: keywords, apps: apps)
    }
}
