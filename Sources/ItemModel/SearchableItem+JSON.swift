#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import TextUtilities

/// The push format: CoreSpotlight's names (`uniqueIdentifier`, `domainIdentifier`,
/// `contentDescription`, `thumbnailURL`, `expirationDate`…), as `searchlight index add`
/// and `POST /v1/items` take it. Decoding is strict and bounded: wrong types, unknown or
/// repeated fields, invalid URLs and values outside ``Limits`` are errors that name the
/// offending path (`items[2].webURL`); nothing a client sends can make a value the index
/// or the ranking cannot hold.
extension SearchableItem {
    /// What one pushed item may hold (the README and the OpenAPI document list the same).
    public enum Limits {
        public static let identifierBytes = 1024
        public static let domainIdentifierBytes = 255
        public static let contentTypeBytes = 128
        public static let titleBytes = 1024
        public static let descriptionBytes = 8192
        public static let textBytes = 16_384
        public static let keywords = 64
        public static let keywordBytes = 256
        public static let urlBytes = 2048
        public static let shortTextBytes = 64
        public static let addressBytes = 512
        public static let apps = 8
        public static let appNameBytes = 256
        /// `ratingScale` is 0 < scale ≤ this; `rating` is 0…scale.
        public static let ratingScale = 100.0
        public static let ratingCount = 1_000_000_000_000
        /// `expirationDate` at most this far ahead (ten years).
        public static let lifetime: TimeInterval = 10 * 365 * 86_400
    }

    static let knownFields: Set<String> = [
        "uniqueIdentifier", "domainIdentifier", "contentType", "title", "contentDescription", "keywords", "thumbnailURL",
        "webURL", "rating", "ratingScale", "ratingCount", "price", "currency", "telephone", "address", "apps",
        "allowsWebFallback", "expirationDate", "text", "source", "language", "latitude", "longitude",
    ]

    /// Reads one pushed item's members: types and structure only (the contract judges values).
    package init(reading reader: FieldReader, owner: String?, now: Date) throws(FieldError) {
        try reader.rejectUnknown(Self.knownFields)
        try reader.rejectDuplicates()
        var expiration: Date?
        if let text = try reader.text("expirationDate") {
            guard text.utf8.count <= 64, let seconds = ISO8601.seconds(from: text) else {
                throw FieldError(path: reader.path + ".expirationDate", "expected an ISO 8601 date such as 2026-12-31T00:00:00Z")
            }
            expiration = Date(timeIntervalSince1970: seconds)
        }
        var apps: [AppTarget] = []
        for (index, app) in (try reader.array("apps", maximumCount: .max) ?? []).enumerated() {
            apps.append(try AppTarget(pushed: app, path: "\(reader.path).apps[\(index)]"))
        }
        self.init(
            uniqueIdentifier: try reader.requiredText("uniqueIdentifier"), domainIdentifier: try reader.text("domainIdentifier"),
            contentType: try reader.text("contentType"), title: try reader.requiredText("title"),
            contentDescription: try reader.text("contentDescription"), keywords: try reader.texts("keywords"),
            thumbnailURL: try reader.text("thumbnailURL"), webURL: try reader.text("webURL"),
            rating: try reader.number("rating"), ratingScale: try reader.number("ratingScale") ?? 5,
            ratingCount: try reader.integer("ratingCount"),
            price: try reader.text("price"), currency: try reader.text("currency"), telephone: try reader.text("telephone"),
            address: try reader.text("address"), apps: apps, allowsWebFallback: try reader.bool("allowsWebFallback") ?? true,
            bodyText: try reader.text("text") ?? "", expirationDate: expiration, source: .pushed, owner: owner, lastUpdated: now,
            record: try reader.object["source"].map { value throws(FieldError) in
                try RecordReference.pushed(try FieldReader(value: value, path: reader.path + ".source"))
            },
            language: try reader.text("language"))
        location = try Self.location(reader)
    }

    /// `latitude` and `longitude`, both or neither (their ranges are the contract's).
    private static func location(_ reader: FieldReader) throws(FieldError) -> GeoPoint? {
        switch (try reader.number("latitude"), try reader.number("longitude")) {
        case (let latitude?, let longitude?): return GeoPoint(latitude: latitude, longitude: longitude)
        case (nil, nil): return nil
        case (nil, _): throw FieldError(path: reader.path + ".latitude", "latitude and longitude go together")
        case (_, nil): throw FieldError(path: reader.path + ".longitude", "latitude and longitude go together")
        }
    }

    /// A BCP 47 language tag (`en`, `pt-BR`, `zh-Hant`): letters, digits and hyphens, at most
    /// 35 bytes, a primary subtag of 2–8 letters. It picks the stemmer of the item's words.
    public static func isValidLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count <= 35, let primary = parts.first, (2...8).contains(primary.utf8.count),
            primary.utf8.allSatisfy({ $0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A })
        else { return false }
        return parts.dropFirst().allSatisfy { !$0.isEmpty && $0.utf8.count <= 8 && $0.utf8.allSatisfy(\.isASCIILetterOrDigit) }
    }

    /// A reverse-DNS name (`com.example.people`): ASCII letters, digits, `-`, `_` and dots
    /// between non-empty labels. Compared exactly, as CoreSpotlight compares them.
    public static func isValidDomainIdentifier(_ text: String) -> Bool {
        text.utf8.count <= Limits.domainIdentifierBytes && text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.allSatisfy { $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
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
            "expirationDate": expirationDate.map { .string(ISO8601.string(fromSeconds: $0.timeIntervalSince1970)) },
            "language": language.map(JSONValue.string),
            "latitude": location.map { JSONValue($0.latitude) }, "longitude": location.map { JSONValue($0.longitude) },
        ]))
    }

    /// The item as a client pushes it (`POST /v1/batches/{name}`), which ``pushed(_:path:owner:now:)``
    /// reads back whole: the body text as `text`, the record as `source`, and of each app only
    /// what a pusher may say.
    public var pushedJSON: JSONValue {
        var fields = json.objectValue ?? JSONObject([])
        fields["apps"] = .array(apps.map { app in
            .object(JSONObject(omittingNils: [
                "platform": .string(app.platform.rawValue), "appStoreId": app.appStoreID.map(JSONValue.string),
                "bundleId": app.bundleID.map(JSONValue.string), "package": app.package.map(JSONValue.string),
                "name": app.name.map(JSONValue.string), "deepLink": app.deepLink.map(JSONValue.string),
            ]))
        })
        fields["ratingScale"] = JSONValue(ratingScale)
        if !bodyText.isEmpty { fields["text"] = .string(bodyText) }
        if let record { fields["source"] = record.json }
        return .object(fields)
    }
}

extension AppTarget {
    /// What a pusher may say about an app. Whether a link is a verified universal link,
    /// and the evidence for an app, come only from the crawler's own checks.
    private static let pushedFields: Set<String> = ["platform", "appStoreId", "bundleId", "package", "name", "deepLink"]

    public init(pushed value: JSONValue, path: String) throws(FieldError) {
        let reader = try FieldReader(value: value, path: path)
        try reader.rejectUnknown(Self.pushedFields)
        try reader.rejectDuplicates()
        let platformName = try reader.requiredString("platform", maximumBytes: 16)
        guard let platform = Platform(rawValue: platformName) else {
            throw FieldError(path: path + ".platform", "must be \"ios\" or \"android\", not \"\(platformName)\"")
        }
        var storeID: String?
        if let text = try reader.string("appStoreId", maximumBytes: 32) {
            guard let id = AppStoreID.normalize(text) else {
                throw FieldError(path: path + ".appStoreId", "expected the numeric App Store id (1234567890 or id1234567890)")
            }
            storeID = id
        }
        self.init(
            platform: platform, appStoreID: storeID, bundleID: try reader.text("bundleId"),
            package: try reader.text("package"), name: try reader.text("name"),
            deepLink: try reader.text("deepLink"), isUniversalLink: false, evidence: .pushed)
        if platform == .ios, appStoreID == nil, bundleID == nil, deepLink == nil {
            throw FieldError(path: path, "an iOS app needs appStoreId, bundleId or deepLink")
        }
        if platform == .android, package == nil, deepLink == nil {
            throw FieldError(path: path, "an Android app needs package or deepLink")
        }
    }

    /// A bundle id or package name: dot-separated letters, digits, `-` and `_`, at most 255 bytes.
    public static func isValidIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == 0x2E || $0 == 0x2D || $0 == 0x5F })
    }

    /// The stored form (also the app part of item JSON).
    package var storedJSON: JSONValue {
        .object(JSONObject(omittingNils: [
            "platform": .string(platform.rawValue), "appStoreId": appStoreID.map(JSONValue.string),
            "bundleId": bundleID.map(JSONValue.string), "package": package.map(JSONValue.string),
            "name": name.map(JSONValue.string), "deepLink": deepLink.map(JSONValue.string),
            "universalLink": .bool(isUniversalLink), "evidence": .string(evidence.rawValue),
        ]))
    }

    /// Reads the stored form back; written only by the index itself, so trusted, and any
    /// entry that does not read is dropped.
    package static func decodeStored(_ text: String) -> [AppTarget] {
        guard let list = try? JSONParser.parse(text).arrayValue else { return [] }
        return list.compactMap { value -> AppTarget? in
            guard let platform = value["platform"]?.stringValue.flatMap(Platform.init(rawValue:)) else { return nil }
            return AppTarget(
                platform: platform, appStoreID: value["appStoreId"]?.stringValue, bundleID: value["bundleId"]?.stringValue,
                package: value["package"]?.stringValue, name: value["name"]?.stringValue, deepLink: value["deepLink"]?.stringValue,
                isUniversalLink: value["universalLink"]?.boolValue ?? false,
                evidence: value["evidence"]?.stringValue.flatMap(Evidence.init(rawValue:)) ?? .pushed)
        }
    }
}

extension UInt8 {
    var isASCIILetterOrDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
