import TextUtilities
/// An X/Twitter card (`<meta name="twitter:…">`), with the app card's per-platform apps.
///
/// X documents `name=`; `property=` is common in the wild and accepted too. For
/// `twitter:app:id:iphone|ipad` the value is the numeric App Store id (a leading `id` is
/// stripped); for `googleplay` it is the Android package. `:android` is accepted as a
/// lenient alias of `:googleplay`. When a tag repeats, the first value wins.
public struct TwitterCard: Sendable, Hashable {
    public var card: String?
    public var site: String?
    public var title: String?
    public var description: String?
    public var image: String?
    /// `twitter:app:country`, needed when the app is not in the US App Store.
    public var appCountry: String?
    public var apps: [App] = []

    public enum Platform: String, Sendable, Hashable {
        case iphone, ipad, googleplay
    }

    public struct App: Sendable, Hashable {
        public var platform: Platform
        public var name: String?
        /// App Store id (digits) for iphone/ipad, package name for googleplay.
        public var id: String?
        /// The deep link.
        public var url: String?
    }

    /// - Parameter properties: (name, content) pairs whose name starts with `twitter:`, in order.
    public init?(properties: [(String, String)]) {
        guard !properties.isEmpty else { return nil }
        var appFields: [Platform: [String: String]] = [:]
        var platformOrder: [Platform] = []
        for (rawName, rawContent) in properties {
            let name = rawName.lowercased()
            let content = rawContent.trimmingASCIIWhitespace()
            guard !content.isEmpty else { continue }
            switch name {
            case "twitter:card": card = card ?? content
            case "twitter:site": site = site ?? content
            case "twitter:title": title = title ?? content
            case "twitter:description": description = description ?? content
            case "twitter:image", "twitter:image:src": image = image ?? content
            case "twitter:app:country": appCountry = appCountry ?? content
            default:
                let parts = name.split(separator: ":")
                guard parts.count == 4, parts[1] == "app", ["name", "id", "url"].contains(parts[2]) else { continue }
                let platformName = parts[3] == "android" ? "googleplay" : String(parts[3])
                guard let platform = Platform(rawValue: platformName) else { continue }
                if appFields[platform] == nil { platformOrder.append(platform) }
                let field = String(parts[2])
                if appFields[platform, default: [:]][field] == nil { appFields[platform, default: [:]][field] = content }
            }
        }
        for platform in platformOrder {
            let fields = appFields[platform] ?? [:]
            let id = platform == .googleplay ? fields["id"] : fields["id"].flatMap(AppStoreID.normalize)
            apps.append(App(platform: platform, name: fields["name"], id: id, url: fields["url"]))
        }
        if card == nil, site == nil, title == nil, description == nil, image == nil, apps.isEmpty { return nil }
    }
}
