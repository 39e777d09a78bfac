import JSON

/// What a tap on a result does for one person.
///
/// The rule, for the requested platform: if one of the result's apps is installed (by App
/// Store id, bundle id or package name), open the app at its deep link; for a verified
/// universal link the https URL itself opens the app. Else, if the item has a web URL and
/// its markup does not forbid falling back to the web, open the web page. Else offer the
/// app in its store. (An item with no web URL fallback and no store app for the platform
/// opens its web page when it has one, since nothing else can open it.)
public struct TapAction: Sendable, Hashable {
    /// Open the app at the deep link, open the web page, or offer the app in its store.
    public enum Kind: String, Sendable, Hashable {
        case openApp = "open-app"
        case openWeb = "open-web"
        case installApp = "install-app"
    }

    public var kind: Kind
    public var url: String?
    /// The app opened or offered.
    public var app: AppTarget?

    public init(kind: Kind, url: String?, app: AppTarget? = nil) {
        self.kind = kind
        self.url = url
        self.app = app
    }

    /// What a tap on `item` does on `platform` for someone with the apps of `installed`.
    public static func resolve(for item: SearchableItem, platform: AppTarget.Platform, installed: Set<String>) -> TapAction? {
        let apps = item.apps.filter { $0.platform == platform }
        if let app = apps.first(where: { $0.isInstalled(installed) && ($0.deepLink != nil || ($0.isUniversalLink && item.webURL != nil)) }) {
            let url = app.isUniversalLink ? item.webURL : app.deepLink
            return TapAction(kind: .openApp, url: url, app: app)
        }
        if let web = item.webURL, item.allowsWebFallback {
            return TapAction(kind: .openWeb, url: web)
        }
        if let app = apps.first(where: { $0.installURL != nil }) {
            return TapAction(kind: .installApp, url: app.installURL, app: app)
        }
        if let web = item.webURL {
            return TapAction(kind: .openWeb, url: web)
        }
        return nil
    }

    public var json: JSONValue {
        ["type": .string(kind.rawValue), "url": url.map(JSONValue.string) ?? .null]
    }
}
