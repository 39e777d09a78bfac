import Foundation
import JSON
import Markup
import WebURL

/// The push format: CoreSpotlight's names (`uniqueIdentifier`, `domainIdentifier`,
/// `contentDescription`, `thumbnailURL`, `expirationDate`…), as `searchlight index add`
/// and `POST /v1/items` take it. Decoding is strict: wrong types, unknown fields and
/// invalid URLs are errors that name the offending path (`items[2].webURL`).
extension SearchableItem {
    static let maximumIdentifierLength = 1024
    static let pushedTimeToLive: TimeInterval = 30 * 24 * 3600

    private static let knownFields: Set<String> = [
        "uniqueIdentifier", "domainIdentifier", "contentType", "title", "contentDescription", "keywords", "thumbnailURL",
        "webURL", "rating", "ratingScale", "ratingCount", "price", "currency", "telephone", "address", "apps",
        "allowsWebFallback", "expirationDate", "text",
    ]

    /// Reads one pushed item. Items without `expirationDate` expire a month after `now`.
    public init(pushed value: JSONValue, path: String = "item", owner: String? = nil, now: Date = Date()) throws(SearchIndexError) {
        let reader = try FieldReader(value: value, path: path)
        try reader.rejectUnknown(Self.knownFields)
        let id = try reader.requiredString("uniqueIdentifier")
        guard id.count <= Self.maximumIdentifierLength else {
            throw .invalidItem("\(path).uniqueIdentifier: longer than \(Self.maximumIdentifierLength) characters")
        }
        let webURL = try reader.url("webURL")
        let expiration = try reader.date("expirationDate") ?? now.addingTimeInterval(Self.pushedTimeToLive)
        var apps: [AppTarget] = []
        if let list = try reader.array("apps") {
            for (index, app) in list.enumerated() {
                apps.append(try AppTarget(pushed: app, path: "\(path).apps[\(index)]"))
            }
        }
        self.init(
            uniqueIdentifier: id, domainIdentifier: try reader.string("domainIdentifier"), contentType: try reader.string("contentType"),
            title: try reader.requiredString("title"), contentDescription: try reader.string("contentDescription"),
            keywords: try reader.strings("keywords"), thumbnailURL: try reader.url("thumbnailURL"), webURL: webURL,
            rating: try reader.number("rating"), ratingScale: try reader.number("ratingScale") ?? 5,
            ratingCount: try reader.number("ratingCount").map { Int($0) }, price: try reader.string("price"),
            currency: try reader.string("currency"), telephone: try reader.string("telephone"), address: try reader.string("address"),
            apps: apps, allowsWebFallback: try reader.bool("allowsWebFallback") ?? true, bodyText: try reader.string("text") ?? "",
            expirationDate: expiration, source: .pushed, owner: owner, lastUpdated: now)
    }

    /// The item in the push format (what `GET` would hand back).
    public var json: JSONValue {
        .object(JSONObject(omittingNils: [
            "uniqueIdentifier": .string(uniqueIdentifier), "domainIdentifier": domainIdentifier.map(JSONValue.string),
            "contentType": contentType.map(JSONValue.string), "title": .string(title),
            "contentDescription": contentDescription.map(JSONValue.string),
            "keywords": keywords.isEmpty ? nil : .array(keywords.map(JSONValue.string)),
            "thumbnailURL": thumbnailURL.map(JSONValue.string), "webURL": webURL.map(JSONValue.string),
            "rating": rating.map { JSONValue($0) }, "ratingCount": ratingCount.map { JSONValue($0) },
            "price": price.map(JSONValue.string), "currency": currency.map(JSONValue.string),
            "telephone": telephone.map(JSONValue.string), "address": address.map(JSONValue.string),
            "apps": .array(apps.map(\.storedJSON)), "allowsWebFallback": .bool(allowsWebFallback),
            "expirationDate": expirationDate.map { .string(ISO8601DateFormatter().string(from: $0)) },
        ]))
    }
}

extension AppTarget {
    private static let knownFields: Set<String> = [
        "platform", "appStoreId", "bundleId", "package", "name", "deepLink", "universalLink", "evidence",
    ]

    public init(pushed value: JSONValue, path: String) throws(SearchIndexError) {
        let reader = try FieldReader(value: value, path: path)
        try reader.rejectUnknown(Self.knownFields)
        let platformName = try reader.requiredString("platform")
        guard let platform = Platform(rawValue: platformName) else {
            throw .invalidItem("\(path).platform: must be \"ios\" or \"android\", not \"\(platformName)\"")
        }
        self.init(
            platform: platform, appStoreID: try reader.string("appStoreId").map { AppStoreID.normalize($0) ?? $0 },
            bundleID: try reader.string("bundleId"), package: try reader.string("package"), name: try reader.string("name"),
            deepLink: try reader.string("deepLink"), isUniversalLink: try reader.bool("universalLink") ?? false,
            evidence: try reader.string("evidence").flatMap(Evidence.init(rawValue:)) ?? .pushed)
        if platform == .ios, appStoreID == nil, bundleID == nil, deepLink == nil {
            throw .invalidItem("\(path): an iOS app needs appStoreId, bundleId or deepLink")
        }
        if platform == .android, package == nil, deepLink == nil {
            throw .invalidItem("\(path): an Android app needs package or deepLink")
        }
    }

    /// The stored form (also the app part of item JSON).
    var storedJSON: JSONValue {
        .object(JSONObject(omittingNils: [
            "platform": .string(platform.rawValue), "appStoreId": appStoreID.map(JSONValue.string),
            "bundleId": bundleID.map(JSONValue.string), "package": package.map(JSONValue.string),
            "name": name.map(JSONValue.string), "deepLink": deepLink.map(JSONValue.string),
            "universalLink": .bool(isUniversalLink), "evidence": .string(evidence.rawValue),
        ]))
    }

    static func decodeStored(_ text: String) -> [AppTarget] {
        guard let list = try? JSONParser.parse(text).arrayValue else { return [] }
        return list.compactMap { try? AppTarget(pushed: $0, path: "apps") }
    }
}

/// Typed, path-reporting access to the members of one JSON object.
public struct FieldReader {
    public let object: JSONObject
    public let path: String

    public init(value: JSONValue, path: String) throws(SearchIndexError) {
        guard let object = value.objectValue else { throw .invalidItem("\(path): expected an object") }
        self.object = object
        self.path = path
    }

    public func rejectUnknown(_ known: Set<String>) throws(SearchIndexError) {
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw .invalidItem("\(path).\(unknown): unknown field")
        }
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    public func string(_ key: String) throws(SearchIndexError) -> String? {
        guard let value = present(key) else { return nil }
        guard let text = value.stringValue else { throw .invalidItem("\(path).\(key): expected a string") }
        return text
    }

    public func requiredString(_ key: String) throws(SearchIndexError) -> String {
        guard let text = try string(key), !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidItem("\(path).\(key): required, a non-empty string")
        }
        return text
    }

    public func number(_ key: String) throws(SearchIndexError) -> Double? {
        guard let value = present(key) else { return nil }
        guard case .number = value, let number = value.doubleValue, number.isFinite else {
            throw .invalidItem("\(path).\(key): expected a number")
        }
        return number
    }

    public func bool(_ key: String) throws(SearchIndexError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard let flag = value.boolValue else { throw .invalidItem("\(path).\(key): expected true or false") }
        return flag
    }

    public func array(_ key: String) throws(SearchIndexError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard let list = value.arrayValue else { throw .invalidItem("\(path).\(key): expected an array") }
        return list
    }

    public func strings(_ key: String) throws(SearchIndexError) -> [String] {
        guard let list = try array(key) else { return [] }
        var result: [String] = []
        for (index, element) in list.enumerated() {
            guard let text = element.stringValue else { throw .invalidItem("\(path).\(key)[\(index)]: expected a string") }
            result.append(text)
        }
        return result
    }

    public func url(_ key: String) throws(SearchIndexError) -> String? {
        guard let text = try string(key) else { return nil }
        guard let url = WebURL(text) else { throw .invalidItem("\(path).\(key): not an absolute http(s) URL") }
        return url.string
    }

    public func date(_ key: String) throws(SearchIndexError) -> Date? {
        guard let text = try string(key) else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withFullDate]
        if let date = formatter.date(from: text) { return date }
        throw .invalidItem("\(path).\(key): expected an ISO 8601 date such as 2026-12-31T00:00:00Z")
    }
}
