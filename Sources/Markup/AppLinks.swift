import TextUtilities
/// App Links (`<meta property="al:…">`, applinks.org / Facebook).
///
/// Parsed with the Bolts resolver's model (`BFWebViewAppLinkResolver`): a property is a
/// path (`al`, `ios`, `url`); at each level the last object is reused, except at the last
/// component, which always starts a new value, so a repeated `al:ios:url` adds a second
/// URL and a bare `al:ios` starts a second iOS app. Within one platform
/// object, `url[i]`, `app_store_id[i]` and `app_name[i]` are zipped by index.
/// `al:web:should_fallback` set to `false`, `no` or `0` forbids falling back to the web.
public struct AppLinks: Sendable, Hashable {
    /// Every app target in document order.
    public var targets: [Target] = []
    /// `al:` properties that are not part of App Links (`al:ios:ur1`, `al:iphone:package`…),
    /// as written, for a site owner to find a misspelling.
    public var unknownProperties: [String] = []

    /// The fields App Links defines for each platform.
    public static let fields: [String: Set<String>] = [
        "ios": ["url", "app_store_id", "app_name"], "iphone": ["url", "app_store_id", "app_name"],
        "ipad": ["url", "app_store_id", "app_name"], "android": ["url", "package", "class", "app_name"],
        "windows_phone": ["url", "app_id", "app_name"], "windows": ["url", "app_id", "app_name"],
        "windows_universal": ["url", "app_id", "app_name"], "web": ["url", "should_fallback"],
    ]
    /// `al:web:url`, the web URL to use instead of the page's own.
    public var webURL: String?
    /// False when `al:web:should_fallback` forbids opening the web page.
    public var shouldFallbackToWeb = true

    public enum Platform: String, Sendable, Hashable, CaseIterable {
        case ios, iphone, ipad, android
        case windowsPhone = "windows_phone"
        case windows
        case windowsUniversal = "windows_universal"

        /// True for the platforms served by the App Store.
        public var isApple: Bool { self == .ios || self == .iphone || self == .ipad }
    }

    public struct Target: Sendable, Hashable {
        public var platform: Platform
        /// The app's deep link (`al:*:url`).
        public var url: String?
        /// `al:ios|iphone|ipad:app_store_id`, normalised to digits.
        public var appStoreID: String?
        /// `al:android:package`.
        public var package: String?
        /// `al:android:class`.
        public var className: String?
        /// `al:windows*:app_id`.
        public var appID: String?
        public var appName: String?
    }

    /// iPhone targets first, then iOS ones, as Bolts orders them for an iPhone.
    public var iPhoneTargets: [Target] { targets.filter { $0.platform == .iphone } + targets.filter { $0.platform == .ios } }
    /// iPad targets first, then iOS ones.
    public var iPadTargets: [Target] { targets.filter { $0.platform == .ipad } + targets.filter { $0.platform == .ios } }
    public var androidTargets: [Target] { targets.filter { $0.platform == .android } }

    /// Builds App Links from the page's meta tags in document order; nil when there are none.
    /// - Parameter properties: (property, content) pairs whose property starts with `al:`.
    public init?(properties: [(String, String)]) {
        guard !properties.isEmpty else { return nil }
        // The Bolts tree, two levels deep: platform objects in document order, each with
        // its fields' values in order.
        var objects: [PlatformObject] = []
        for (property, content) in properties {
            let path = property.lowercased().split(separator: ":", omittingEmptySubsequences: false)
            guard path.count == 2 || path.count == 3, path[0] == "al",
                let known = Self.fields[String(path[1])], path.count == 2 || known.contains(String(path[2]))
            else {
                if unknownProperties.count < 32 { unknownProperties.append(String(property.prefix(100))) }
                continue
            }
            let platform = String(path[1])
            if path.count == 2 || !objects.contains(where: { $0.platform == platform }) {
                objects.append(PlatformObject(platform: platform))
            }
            guard path.count == 3 else { continue }
            let index = objects.lastIndex { $0.platform == platform }!
            objects[index].fields[String(path[2]), default: []].append(content.trimmingASCIIWhitespace())
        }
        var sawWeb = false
        for object in objects {
            if object.platform == "web" {
                // Only the first web object counts.
                guard !sawWeb else { continue }
                sawWeb = true
                webURL = object.values("url").first.flatMap(Self.nonEmpty)
                if let fallback = object.values("should_fallback").first?.lowercased() {
                    shouldFallbackToWeb = !["false", "no", "0"].contains(fallback)
                }
                continue
            }
            guard let platform = Platform(rawValue: object.platform) else { continue }
            let urls = object.values("url")
            let storeIDs = object.values("app_store_id")
            let names = object.values("app_name")
            let packages = object.values("package")
            let classes = object.values("class")
            let appIDs = object.values("app_id")
            let count = [urls.count, storeIDs.count, names.count, packages.count, classes.count, appIDs.count].max() ?? 0
            for i in 0..<count {
                targets.append(Target(
                    platform: platform,
                    url: urls[safe: i].flatMap(Self.nonEmpty),
                    appStoreID: storeIDs[safe: i].flatMap(AppStoreID.normalize),
                    package: packages[safe: i].flatMap(Self.nonEmpty),
                    className: classes[safe: i].flatMap(Self.nonEmpty),
                    appID: appIDs[safe: i].flatMap(Self.nonEmpty),
                    appName: names[safe: i].flatMap(Self.nonEmpty)))
            }
        }
        targets.removeAll { $0.url == nil && $0.appStoreID == nil && $0.package == nil && $0.appID == nil && $0.appName == nil }
        if targets.isEmpty, webURL == nil, shouldFallbackToWeb, unknownProperties.isEmpty { return nil }
    }

    private static func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }

    /// One `al:<platform>` object of the Bolts tree.
    private struct PlatformObject {
        var platform: String
        var fields: [String: [String]] = [:]

        /// A field's values in order; empty ones keep their place so that zipping by
        /// index stays aligned.
        func values(_ key: String) -> [String] { fields[key] ?? [] }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
