import FoundationEssentials
import JSON
import SearchIndex
import TextUtilities

/// The one place a mapped record becomes a ``SearchableItem``: each template rendered from
/// the record's values, text cleaned (control characters to spaces, cut at the push
/// format's limits) and the result checked as a pushed item is, so an app's database can
/// put nothing in the index that a push could not. Pure: `value` supplies the record.
public enum ItemRenderer {
    public enum Outcome: Sendable {
        case item(SearchableItem)
        case skipped(IngestSkip, String?)
    }

    public static func render(
        _ mapping: Mapping, record: RecordReference?, now: Date, value: (RecordKeyPath) throws -> String?
    ) throws -> Outcome {
        typealias Limits = SearchableItem.Limits
        // A value put into a URL is one URL component: `Acme Corp` → `Acme%20Corp`.
        func component(_ path: RecordKeyPath) throws -> String? { try value(path).map(Self.percentEncoded) }
        func field(_ name: Mapping.Field, _ limit: Int, multiline: Bool = false) throws -> String? {
            guard let template = mapping.fields[name] else { return nil }
            let isURL = name == .webURL || name == .thumbnailURL
            let text = clean(try isURL ? template.render(component) : template.render(value), limit: limit, multiline: multiline)
            return text.isEmpty ? nil : text
        }
        let identifier = clean(try mapping.uniqueIdentifier.render(value), limit: Limits.identifierBytes, multiline: false)
        guard !identifier.isEmpty else { return .skipped(.emptyIdentifier, nil) }
        guard let title = try field(.title, Limits.titleBytes) else { return .skipped(.emptyTitle, nil) }
        var fields: [(String, JSONValue)] = [("uniqueIdentifier", .string(identifier)), ("title", .string(title))]
        let text: [(Mapping.Field, String, Int, Bool)] = [
            (.contentDescription, "contentDescription", Limits.descriptionBytes, true), (.thumbnailURL, "thumbnailURL", Limits.urlBytes, false),
            (.webURL, "webURL", Limits.urlBytes, false), (.price, "price", Limits.shortTextBytes, false),
            (.currency, "currency", Limits.shortTextBytes, false), (.phone, "telephone", Limits.shortTextBytes, false),
            (.address, "address", Limits.addressBytes, true), (.contentType, "contentType", Limits.contentTypeBytes, false),
            (.domainIdentifier, "domainIdentifier", Limits.domainIdentifierBytes, false), (.text, "text", Limits.textBytes, true),
            (.expirationDate, "expirationDate", Limits.shortTextBytes, false),
        ]
        for (name, key, limit, multiline) in text {
            if let rendered = try field(name, limit, multiline: multiline) { fields.append((key, .string(rendered))) }
        }
        for (name, key) in [(Mapping.Field.rating, "rating"), (.ratingScale, "ratingScale"), (.ratingCount, "ratingCount")] {
            guard let rendered = try field(name, 64) else { continue }
            guard let number = Double(rendered), number.isFinite else { return .skipped(.invalidItem, "\(key): '\(rendered)' is not a number") }
            fields.append((key, JSONValue(number)))
        }
        var keywords: [JSONValue] = []
        for template in mapping.keywords.prefix(Limits.keywords) {
            let keyword = clean(try template.render(value), limit: Limits.keywordBytes, multiline: false)
            if !keyword.isEmpty { keywords.append(.string(keyword)) }
        }
        if !keywords.isEmpty { fields.append(("keywords", .array(keywords))) }
        var apps: [JSONValue] = []
        for app in mapping.apps {
            var members: [(String, JSONValue)] = [("platform", .string(app.platform))]
            for (key, text) in [("appStoreId", app.appStoreID), ("bundleId", app.bundleID), ("package", app.package), ("name", app.name)] {
                if let text { members.append((key, .string(text))) }
            }
            if let template = app.deepLink {
                let link = clean(try template.render(component), limit: Limits.urlBytes, multiline: false)
                if !link.isEmpty { members.append(("deepLink", .string(link))) }
            }
            apps.append(.object(JSONObject(members)))
        }
        if !apps.isEmpty { fields.append(("apps", .array(apps))) }
        do {
            var item = try SearchableItem(pushed: .object(JSONObject(fields)), path: mapping.entity, owner: nil, now: now)
            // Records do not expire unless the mapping says when.
            if mapping.fields[.expirationDate] == nil { item.expirationDate = nil }
            item.record = record
            item.lastUpdated = now
            return .item(item)
        } catch {
            return .skipped(.invalidItem, "\(error)")
        }
    }

    /// Every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: bytes.append(byte)
            default: bytes += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Control characters become spaces (tab and line breaks stay where text may be
    /// multi-line), surrounding whitespace goes, and the text is cut at `limit` bytes on a
    /// character boundary.
    static func clean(_ text: String, limit: Int, multiline: Bool) -> String {
        var result = ""
        result.reserveCapacity(min(text.utf8.count, limit))
        var bytes = 0
        for character in text {
            var kept = character
            let scalars = character.unicodeScalars
            if scalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                if !(multiline && scalars.allSatisfy({ $0 == "\n" || $0 == "\t" || $0 == "\r" })) { kept = " " }
            }
            let size = kept.utf8.count
            if bytes + size > limit { break }
            result.append(kept)
            bytes += size
        }
        return result.trimmingASCIIWhitespace()
    }
}
