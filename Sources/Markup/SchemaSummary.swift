import TextUtilities
import JSON

/// What the index needs from a page's schema.org data, read from its main entity.
///
/// The main entity is the first entity (in document order) that is not site chrome
/// (WebSite, WebPage, BreadcrumbList, Organization and the like); a WebPage's
/// `mainEntity` comes first. Failing that, the first entity. `@id` references are
/// followed across every block on the page. Actions are collected from every entity:
/// a SearchAction is the site's search box; other actions whose EntryPoints name an
/// `actionPlatform` or a non-web URL are app deep links.
public struct SchemaSummary: Sendable, Hashable {
    /// The main entity's types (`Product`, `Recipe`…).
    public var types: [String] = []
    /// `name`, else `headline`.
    public var name: String?
    public var description: String?
    /// The main entity's `articleBody` (or `text`), the article's whole text when a page
    /// keeps it in JSON-LD (at most 64 KB).
    public var articleBody: String?
    /// Absolute image URLs: `image` (text, ImageObject or a list), then `thumbnailUrl`.
    public var images: [String] = []
    public var rating: Rating?
    public var offer: Offer?
    public var telephone: String?
    public var address: Address?
    /// Where the main entity is: its `geo` (GeoCoordinates), its own `latitude`/`longitude`
    /// (a Place), or those of its `location` or `address`; numbers in range, and not 0,0
    /// (a template's placeholder far more often than a place in the Gulf of Guinea).
    public var coordinates: Coordinates?
    public var interactions: [Interaction] = []
    /// `contentUrl` of an AudioObject or VideoObject (Apple's "play" action).
    public var mediaURL: String?
    public var searchAction: Action?
    public var actions: [Action] = []
    /// App deep links declared through actions, in document order.
    public var deepLinks: [DeepLink] = []

    public struct Rating: Sendable, Hashable {
        public var value: Double
        /// `ratingCount`, else `reviewCount`.
        public var count: Int?
        public var best: Double?
        public var worst: Double?
    }

    public struct Offer: Sendable, Hashable {
        /// `price`, else an AggregateOffer's `lowPrice`, as written.
        public var price: String?
        public var currency: String?
        public var availability: String?

        /// The price as a number (`"1,299.00"` → 1299).
        public var amount: Double? {
            price.flatMap { Double($0.filter { $0.isNumber || $0 == "." || $0 == "-" }) }
        }
    }

    public struct Address: Sendable, Hashable {
        public var street: String?
        public var locality: String?
        public var region: String?
        public var postalCode: String?
        public var country: String?
        /// The address on one line.
        public var formatted: String {
            [street, locality, region, postalCode, country].compactMap { $0 }.joined(separator: ", ")
        }
    }

    public struct Coordinates: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double

        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public struct Interaction: Sendable, Hashable {
        /// The action type without prefix: `WatchAction`, `LikeAction`, or a legacy `UserLikes`.
        public var type: String
        public var count: Int

        public init(type: String, count: Int) {
            self.type = type
            self.count = count
        }
    }

    public struct Action: Sendable, Hashable {
        public var type: String
        public var targets: [EntryPoint]
        /// `query-input` of a SearchAction (`required name=search_term_string`).
        public var queryInput: String?
    }

    public struct EntryPoint: Sendable, Hashable {
        public var urlTemplate: String
        /// Platform names without prefix (`IOSPlatform`, `AndroidPlatform`, `DesktopWebPlatform`).
        public var platforms: [String]
    }

    public struct DeepLink: Sendable, Hashable {
        public enum Platform: String, Sendable, Hashable { case ios, android }
        public var platform: Platform
        /// The app URL (an `ios-app://`/`android-app://` target already converted to the
        /// `scheme://host/path` it stands for).
        public var url: String
        /// The App Store id or package, when the target named it.
        public var appID: String?
        public var actionType: String
    }

    public init() {}

    static let chromeTypes: Set<String> = [
        "WebSite", "WebPage", "ItemPage", "CollectionPage", "AboutPage", "ContactPage", "SearchResultsPage",
        "ProfilePage", "Organization", "Corporation", "BreadcrumbList", "SiteNavigationElement", "WPHeader",
        "WPFooter", "WPSideBar", "ImageObject", "SearchAction", "ListItem", "EntryPoint",
    ]
    static let pageTypes: Set<String> = ["WebPage", "ItemPage", "CollectionPage", "AboutPage", "ProfilePage", "ContactPage"]

    /// Reads the summary from a page's entities.
    /// - Parameter resolveURL: makes a URL found in the data absolute (against the page's base).
    public init(objects: [SchemaObject], resolveURL: (String) -> String?) {
        let graph = EntityGraph(objects.map(\.value))
        var candidates: [JSONObject] = []
        for entity in graph.entities where SchemaVocabulary.isType(entity, Self.pageTypes) {
            if let main = graph.resolve(SchemaVocabulary.value(entity, "mainEntity")).first?.objectValue { candidates.append(main) }
        }
        candidates += graph.entities
        guard let main = candidates.first(where: { entity in
            let types = SchemaVocabulary.types(of: entity)
            return !types.isEmpty && !types.allSatisfy { Self.chromeTypes.contains($0) }
        }) ?? candidates.first else { return }

        types = SchemaVocabulary.types(of: main)
        name = SchemaVocabulary.text(SchemaVocabulary.value(main, "name")) ?? SchemaVocabulary.text(SchemaVocabulary.value(main, "headline"))
        description = SchemaVocabulary.text(SchemaVocabulary.value(main, "description"))
        articleBody = (SchemaVocabulary.text(SchemaVocabulary.value(main, "articleBody")) ?? SchemaVocabulary.text(SchemaVocabulary.value(main, "text")))
            .map { TextClean.string(Array($0.utf8), limit: 64 * 1024) }
        for image in graph.resolve(SchemaVocabulary.value(main, "image")) + graph.resolve(SchemaVocabulary.value(main, "thumbnailUrl")) {
            let raw = image.stringValue ?? image.objectValue.flatMap {
                SchemaVocabulary.text($0["url"]) ?? SchemaVocabulary.text($0["contentUrl"])
            }
            if let raw, let url = resolveURL(raw), !images.contains(url) { images.append(url) }
        }
        rating = graph.resolve(SchemaVocabulary.value(main, "aggregateRating")).lazy.compactMap { $0.objectValue.flatMap(Self.rating) }.first
        offer = graph.resolve(SchemaVocabulary.value(main, "offers")).lazy.compactMap { $0.objectValue.flatMap(Self.offer) }.first

        let organizations = graph.entities.filter { SchemaVocabulary.isType($0, ["Organization", "LocalBusiness", "Corporation"]) }
        telephone = ([main] + organizations).lazy.compactMap { SchemaVocabulary.text(SchemaVocabulary.value($0, "telephone")) }.first
        address = ([main] + organizations).lazy.compactMap { entity -> Address? in
            graph.resolve(SchemaVocabulary.value(entity, "address")).lazy.compactMap { Self.address($0) }.first
        }.first
        coordinates = Self.coordinates(main, graph)
        interactions = Self.interactions(main, graph)
        for media in [main] + graph.resolve(SchemaVocabulary.value(main, "video")).compactMap(\.objectValue)
            + graph.resolve(SchemaVocabulary.value(main, "audio")).compactMap(\.objectValue)
        where SchemaVocabulary.isType(media, ["VideoObject", "AudioObject", "MediaObject", "MusicRecording"]) {
            if let url = SchemaVocabulary.text(media["contentUrl"]).flatMap(resolveURL) {
                mediaURL = url
                break
            }
        }

        for entity in graph.allObjects {
            for actionValue in graph.resolve(SchemaVocabulary.value(entity, "potentialAction")) {
                guard let actionObject = actionValue.objectValue, let action = Self.action(actionObject, graph) else { continue }
                guard !actions.contains(action) else { continue }
                actions.append(action)
                if action.type == "SearchAction" {
                    searchAction = searchAction ?? action
                    continue
                }
                for target in action.targets {
                    if let link = Self.deepLink(target, actionType: action.type), !deepLinks.contains(link) {
                        deepLinks.append(link)
                    }
                }
            }
        }
    }

    private static func rating(_ o: JSONObject) -> Rating? {
        guard let value = SchemaVocabulary.value(o, "ratingValue")?.doubleValue, value.isFinite else { return nil }
        let count = SchemaVocabulary.value(o, "ratingCount")?.intValue ?? SchemaVocabulary.value(o, "reviewCount")?.intValue
        return Rating(value: value, count: count, best: SchemaVocabulary.value(o, "bestRating")?.doubleValue,
                      worst: SchemaVocabulary.value(o, "worstRating")?.doubleValue)
    }

    private static func offer(_ o: JSONObject) -> Offer? {
        let price = SchemaVocabulary.text(SchemaVocabulary.value(o, "price")) ?? SchemaVocabulary.text(SchemaVocabulary.value(o, "lowPrice"))
        let currency = SchemaVocabulary.text(SchemaVocabulary.value(o, "priceCurrency"))
        guard price != nil || currency != nil else { return nil }
        let availability = SchemaVocabulary.text(SchemaVocabulary.value(o, "availability")).map(SchemaVocabulary.localName)
        return Offer(price: price, currency: currency, availability: availability)
    }

    private static func address(_ value: JSONValue) -> Address? {
        if let text = value.stringValue?.trimmingASCIIWhitespace(), !text.isEmpty {
            return Address(street: text)
        }
        guard let o = value.objectValue else { return nil }
        let country = SchemaVocabulary.text(SchemaVocabulary.value(o, "addressCountry"))
        let address = Address(
            street: SchemaVocabulary.text(SchemaVocabulary.value(o, "streetAddress")),
            locality: SchemaVocabulary.text(SchemaVocabulary.value(o, "addressLocality")),
            region: SchemaVocabulary.text(SchemaVocabulary.value(o, "addressRegion")),
            postalCode: SchemaVocabulary.text(SchemaVocabulary.value(o, "postalCode")),
            country: country)
        return address.formatted.isEmpty ? nil : address
    }

    /// The first coordinates of the entity itself, its `geo`, then its `location` and its
    /// `address` (each of those itself or its `geo`).
    private static func coordinates(_ main: JSONObject, _ graph: EntityGraph) -> Coordinates? {
        func own(_ o: JSONObject) -> Coordinates? {
            guard let latitude = SchemaVocabulary.value(o, "latitude")?.doubleValue, let longitude = SchemaVocabulary.value(o, "longitude")?.doubleValue,
                latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude),
                latitude != 0 || longitude != 0
            else { return nil }
            return Coordinates(latitude: latitude, longitude: longitude)
        }
        func placed(_ o: JSONObject) -> Coordinates? {
            own(o) ?? graph.resolve(SchemaVocabulary.value(o, "geo")).lazy.compactMap { $0.objectValue.flatMap(own) }.first
        }
        if let found = placed(main) { return found }
        for key in ["location", "address"] {
            for value in graph.resolve(SchemaVocabulary.value(main, key)) {
                if let o = value.objectValue, let found = placed(o) { return found }
            }
        }
        return nil
    }

    private static func interactions(_ main: JSONObject, _ graph: EntityGraph) -> [Interaction] {
        var result: [Interaction] = []
        for value in graph.resolve(SchemaVocabulary.value(main, "interactionStatistic")) {
            guard let o = value.objectValue, let count = SchemaVocabulary.value(o, "userInteractionCount")?.intValue else { continue }
            let typeValue = SchemaVocabulary.value(o, "interactionType")
            let type = typeValue?.objectValue.flatMap { SchemaVocabulary.types(of: $0).first }
                ?? typeValue?.stringValue.map(SchemaVocabulary.localName) ?? "InteractAction"
            result.append(Interaction(type: type, count: count))
        }
        // The legacy form: "interactionCount": "UserLikes:1234".
        for value in graph.resolve(SchemaVocabulary.value(main, "interactionCount")) {
            guard let text = value.stringValue else { continue }
            let parts = text.split(separator: ":", maxSplits: 1)
            if parts.count == 2, let count = Int(parts[1].trimmingASCIIWhitespace()) {
                result.append(Interaction(type: SchemaVocabulary.localName(String(parts[0])), count: count))
            } else if let count = Int(text.trimmingASCIIWhitespace()) {
                result.append(Interaction(type: "InteractAction", count: count))
            }
        }
        return result
    }

    private static func action(_ o: JSONObject, _ graph: EntityGraph) -> Action? {
        let type = SchemaVocabulary.types(of: o).first ?? "Action"
        var targets: [EntryPoint] = []
        for target in graph.resolve(SchemaVocabulary.value(o, "target")) {
            if let url = target.stringValue?.trimmingASCIIWhitespace(), !url.isEmpty {
                targets.append(EntryPoint(urlTemplate: url, platforms: []))
            } else if let entry = target.objectValue, let url = SchemaVocabulary.text(entry["urlTemplate"] ?? entry["url"]) {
                let platforms = (SchemaVocabulary.value(entry, "actionPlatform")?.asList ?? []).compactMap {
                    SchemaVocabulary.text($0).map(SchemaVocabulary.localName)
                }
                targets.append(EntryPoint(urlTemplate: url, platforms: platforms))
            }
        }
        guard !targets.isEmpty else { return nil }
        let queryInput = SchemaVocabulary.text(o["query-input"] ?? o["query"]) ?? o["query-input"]?.objectValue.flatMap {
            SchemaVocabulary.text($0["valueName"]).map { "required name=\($0)" }
        }
        return Action(type: type, targets: targets, queryInput: queryInput)
    }

    private static func deepLink(_ target: EntryPoint, actionType: String) -> DeepLink? {
        if let alternate = AppAlternate(href: target.urlTemplate) {
            guard let url = alternate.deepLink else { return nil }
            return DeepLink(platform: alternate.platform == .ios ? .ios : .android, url: url, appID: alternate.appID,
                            actionType: actionType)
        }
        let lower = target.urlTemplate.lowercased()
        let isWeb = lower.hasPrefix("http://") || lower.hasPrefix("https://")
        let platforms = Set(target.platforms.map { $0.lowercased() })
        if platforms.contains("iosplatform") {
            return DeepLink(platform: .ios, url: target.urlTemplate, appID: nil, actionType: actionType)
        }
        if platforms.contains("androidplatform") {
            return DeepLink(platform: .android, url: target.urlTemplate, appID: nil, actionType: actionType)
        }
        guard !isWeb, lower.contains("://") else { return nil }
        // A custom scheme with no platform named: assume the app exists on both.
        return DeepLink(platform: .ios, url: target.urlTemplate, appID: nil, actionType: actionType)
    }
}

/// The entities of a page with their `@id`s, so references can be followed.
struct EntityGraph {
    /// Top-level entities in document order.
    let entities: [JSONObject]
    /// Every object in the trees (depth-bounded), for collecting actions.
    var allObjects: [JSONObject] = []
    private var byID: [String: JSONObject] = [:]

    /// - Parameter entities: the page's top-level entities, `@graph` already expanded.
    init(_ entities: [JSONObject]) {
        self.entities = entities
        for entity in entities { collect(.object(entity), depth: 0) }
    }

    private mutating func collect(_ value: JSONValue, depth: Int) {
        guard depth < 32 else { return }
        switch value {
        case .object(let o):
            allObjects.append(o)
            // The fullest definition of an id wins over bare references to it.
            if let id = o["@id"]?.stringValue, o.count > 1, (byID[id]?.count ?? 0) < o.count { byID[id] = o }
            for member in o.members { collect(member.value, depth: depth + 1) }
        case .array(let items):
            for item in items { collect(item, depth: depth + 1) }
        default:
            return
        }
    }

    /// The values of a property as a list, with `{"@id": …}` references replaced by the
    /// objects they name.
    func resolve(_ value: JSONValue?) -> [JSONValue] {
        guard let value else { return [] }
        return value.asList.map { item in
            if let o = item.objectValue, o.count == 1, let id = o["@id"]?.stringValue, let target = byID[id] {
                return .object(target)
            }
            return item
        }
    }
}
