import CLibXML2
import FoundationEssentials

/// Reads the data model an app ships: the `contents` XML of an `.xcdatamodel` (given as
/// the file, the `.xcdatamodel` folder, or an `.xcdatamodeld` bundle, whose
/// `.xccurrentversion` names the current version), with libxml2's pull parser. Entities
/// by `name` and `parentEntity`; attributes by `name` and `attributeType`; relationships by
/// `name`, `destinationEntity`, `toMany` and `inverseName`. The network is never touched
/// and entities are not expanded.
public enum CoreDataModelReader {
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var problem: String
        public var description: String { path + ": " + problem }
    }

    public static let maximumBytes = 16 << 20

    public static func read(path: String) throws(ReadError) -> DataModel {
        let file = try contentsPath(path)
        guard let data = FileManager.default.contents(atPath: file) else { throw ReadError(path: file, problem: "cannot be read") }
        guard data.count <= maximumBytes else { throw ReadError(path: file, problem: "larger than \(maximumBytes) bytes") }
        return try parse(Array(data), path: file)
    }

    /// The `contents` file a model path means.
    static func contentsPath(_ path: String) throws(ReadError) -> String {
        guard FileManager.default.fileExists(atPath: path) else { throw ReadError(path: path, problem: "no such file") }
        // Listing succeeds for a folder only.
        guard (try? FileManager.default.contentsOfDirectory(atPath: path)) != nil else { return path }
        if path.hasSuffix(".xcdatamodeld") || path.hasSuffix(".xcdatamodeld/") {
            let versions = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".xcdatamodel") }.sorted()
            let current = FileManager.default.contents(atPath: path + "/.xccurrentversion").flatMap { currentVersion(Array($0)) }
            guard let chosen = current.flatMap({ versions.contains($0) ? $0 : nil }) ?? versions.last else {
                throw ReadError(path: path, problem: "no .xcdatamodel inside")
            }
            return path + "/" + chosen + "/contents"
        }
        return path + "/contents"
    }

    /// `_XCCurrentVersionName` from the bundle's property list.
    static func currentVersion(_ bytes: [UInt8]) -> String? {
        var found: String?
        var afterKey = false
        walk(bytes) { event in
            if case .text(let element, let text) = event {
                if element == "key" { afterKey = text == "_XCCurrentVersionName" } else if element == "string", afterKey, found == nil { found = text }
            }
        }
        return found
    }

    public static func parse(_ bytes: [UInt8], path: String) throws(ReadError) -> DataModel {
        var entities: [DataModel.Entity] = []
        var sawModel = false
        let parsed = walk(bytes) { event in
            guard case .element(let name, let attributes) = event else { return }
            switch name {
            case "model": sawModel = true
            case "entity":
                guard let entityName = attributes["name"], !entityName.isEmpty else { return }
                entities.append(DataModel.Entity(name: entityName, parent: attributes["parentEntity"], attributes: [], relationships: []))
            case "attribute":
                guard let attributeName = attributes["name"], !attributeName.isEmpty, !entities.isEmpty else { return }
                entities[entities.count - 1].attributes.append(DataModel.Attribute(name: attributeName, type: type(attributes["attributeType"])))
            case "relationship":
                guard let relationshipName = attributes["name"], let destination = attributes["destinationEntity"], !entities.isEmpty else { return }
                entities[entities.count - 1].relationships.append(DataModel.Relationship(
                    name: relationshipName, destination: destination, toMany: attributes["toMany"] == "YES", inverse: attributes["inverseName"]))
            default: return
            }
        }
        guard parsed, sawModel else { throw ReadError(path: path, problem: "not a Core Data model (no <model> element)") }
        return DataModel(entities: entities)
    }

    private static func type(_ name: String?) -> DataModel.AttributeType {
        switch name ?? "" {
        case "String", "URI", "UUID": .text
        case "Integer 16", "Integer 32", "Integer 64": .integer
        case "Double", "Float", "Decimal": .decimal
        case "Boolean": .boolean
        case "Date": .date
        case "Binary": .binary
        default: .other
        }
    }

    enum Event {
        case element(String, [String: String])
        case text(element: String, String)
    }

    /// Streams elements (with attributes) and element text; false when the bytes are not XML.
    @discardableResult
    static func walk(_ bytes: [UInt8], _ handle: (Event) -> Void) -> Bool {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let reader: xmlTextReaderPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { xmlReaderForMemory($0.baseAddress, Int32($0.count), nil, nil, options) }
        }
        guard let reader else { return false }
        defer { xmlFreeTextReader(reader) }
        var current = ""
        var result: Int32 = 1
        while true {
            result = xmlTextReaderRead(reader)
            guard result == 1 else { break }
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                current = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                var attributes: [String: String] = [:]
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    if let name = xmlTextReaderConstLocalName(reader), let value = xmlTextReaderConstValue(reader) {
                        attributes[String(cString: name)] = String(cString: value)
                    }
                }
                handle(.element(current, attributes))
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                if let value = xmlTextReaderConstValue(reader) { handle(.text(element: current, String(cString: value))) }
            default:
                continue
            }
        }
        return result == 0
    }
}
