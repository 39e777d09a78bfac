import ItemModel
import JSON

/// What a search is scoped to, every part optional and all of them combined: CoreSpotlight's
/// `CSSearchQuery` scoped to one app's items, Meilisearch's and Typesense's filters. An
/// item passes when it passes every part given.
public struct SearchFilter: Sendable, Hashable {
    /// The items of this owner (an API key's owner, `""` for items nobody owns).
    public var owner: String?
    /// Items whose web URL's host is this domain or one of its subdomains.
    public var domain: String?
    /// Items whose `domainIdentifier` is this one or starts with it and a dot, as
    /// CoreSpotlight deletes by domain identifier (`com.app.albums` covers `com.app.albums.2024`).
    public var domainIdentifier: String?
    /// Items of this content type (a UTType identifier, `public.image`…), exactly.
    public var contentType: String?
    /// Items an app of this platform opens.
    public var hasApp: AppTarget.Platform?
    /// Items one of these apps opens (App Store ids, bundle ids, packages), on the platform of
    /// ``hasApp`` (the search's platform when the request asks for its installed apps only:
    /// `installedOnly`). Sorted, so equal filters are equal.
    public var openedBy: [String]?
    /// Items whose place is within this circle (`near=lat,lng&radius=km`); items without a
    /// place do not pass.
    public var near: GeoCircle?

    public init(owner: String? = nil, domain: String? = nil, domainIdentifier: String? = nil, contentType: String? = nil,
                hasApp: AppTarget.Platform? = nil) {
        self.owner = owner
        self.domain = domain
        self.domainIdentifier = domainIdentifier
        self.contentType = contentType
        self.hasApp = hasApp
    }

    public var isEmpty: Bool { owner == nil && domain == nil && domainIdentifier == nil && contentType == nil && hasApp == nil && openedBy == nil && near == nil }

    /// What one filter may hold.
    public enum Limits {
        public static let ownerBytes = 128
        public static let domainBytes = 253
        public static let domainIdentifierBytes = 256
        public static let contentTypeBytes = 128
    }

    /// Checks each part's length, and that a domain is a host name (letters, digits, `-`,
    /// `_` and dots, lower case once read).
    public func validate() throws(SearchIndexError) {
        func check(_ value: String?, _ name: String, _ limit: Int) throws(SearchIndexError) {
            guard let value else { return }
            guard !value.isEmpty || name == "owner", value.utf8.count <= limit else {
                throw .invalidQuery("\(name) must be 1 to \(limit) bytes", field: name)
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidQuery("\(name) must not hold control characters", field: name)
            }
        }
        try check(owner, "owner", Limits.ownerBytes)
        try check(domain, "domain", Limits.domainBytes)
        try check(domainIdentifier, "domainIdentifier", Limits.domainIdentifierBytes)
        try check(contentType, "contentType", Limits.contentTypeBytes)
        if let near, !near.isValid {
            throw .invalidQuery("near must be latitude,longitude (-90 to 90, -180 to 180) and radius more than 0 and at most \(Int(GeoCircle.maximumRadius)) km",
                                field: "near")
        }
        if let domain, !domain.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x2E || $0 == 0x5F })
            || domain.hasPrefix(".") || domain.hasSuffix(".")
        {
            throw .invalidQuery("domain must be a host name such as recipes.example (lower case, punycode for other scripts)", field: "domain")
        }
    }

    /// Only items one of `installed` opens on `platform` (`installedOnly=1`).
    public mutating func restrict(toAppsIn installed: Set<String>, platform: AppTarget.Platform) {
        openedBy = installed.sorted()
        hasApp = platform
    }

    /// The filter as a router sends it to its shards, and as an answer echoes it.
    public var json: JSONValue {
        .object(JSONObject(omittingNils: [
            "owner": owner.map(JSONValue.string), "domain": domain.map(JSONValue.string),
            "domainIdentifier": domainIdentifier.map(JSONValue.string), "contentType": contentType.map(JSONValue.string),
            "hasApp": hasApp.map { .string($0.rawValue) }, "openedBy": openedBy.map { .array($0.map(JSONValue.string)) },
            "near": near.map { .array([JSONValue($0.center.latitude), JSONValue($0.center.longitude), JSONValue($0.radius)]) },
        ]))
    }

    /// Reads ``json`` back (a shard reading its router's request); throws for a value of the
    /// wrong type or an unknown platform.
    public init(json: JSONValue) throws(SearchIndexError) {
        guard let object = json.objectValue else { throw .invalidQuery("filter must be an object") }
        func string(_ name: String) throws(SearchIndexError) -> String? {
            guard let value = object[name] else { return nil }
            guard let text = value.stringValue else { throw .invalidQuery("filter.\(name) must be a string") }
            return text
        }
        self.init(owner: try string("owner"), domain: try string("domain"), domainIdentifier: try string("domainIdentifier"),
                  contentType: try string("contentType"))
        if let platform = try string("hasApp") {
            guard let value = AppTarget.Platform(rawValue: platform) else { throw .invalidQuery("hasApp must be ios or android") }
            hasApp = value
        }
        if let apps = object["openedBy"] {
            guard let list = apps.arrayValue, list.count <= SearchRequest.Limits.installedApps else {
                throw .invalidQuery("filter.openedBy must be a list of at most \(SearchRequest.Limits.installedApps) app ids")
            }
            var ids: [String] = []
            for value in list {
                guard let id = value.stringValue, (1...SearchRequest.Limits.installedAppBytes).contains(id.utf8.count) else {
                    throw .invalidQuery("filter.openedBy holds an app id that is not 1 to \(SearchRequest.Limits.installedAppBytes) bytes of text")
                }
                ids.append(id)
            }
            openedBy = Array(Set(ids)).sorted()
        }
        if let circle = object["near"] {
            guard let numbers = circle.arrayValue?.compactMap(\.doubleValue), numbers.count == 3, circle.arrayValue?.count == 3 else {
                throw .invalidQuery("filter.near must be [latitude, longitude, radius]")
            }
            near = GeoCircle(center: GeoPoint(latitude: numbers[0], longitude: numbers[1]), radius: numbers[2])
        }
        try validate()
    }
}
