import TextUtilities
/// A `<link rel="alternate" href="android-app://…">` or `ios-app://…` deep link
/// (Google App Indexing).
///
/// Grammar: `android-app://{package}[/{scheme}[/{host_path}]]` and the legacy
/// `ios-app://{itunes_id}/{scheme}/{host_path}`, where host_path is host, path and query.
/// The deep link the alternate stands for is `{scheme}://{host_path}`; with no scheme the
/// alternate only names the app.
public struct AppAlternate: Sendable, Hashable {
    public enum Platform: String, Sendable, Hashable {
        case ios, android
    }

    public var platform: Platform
    /// The href as written.
    public var href: String
    /// The numeric App Store id (ios) or the package name (android).
    public var appID: String
    public var scheme: String?
    public var host: String?
    /// Path and query after the host, starting with `/` or `?`; nil when absent.
    public var path: String?

    /// `scheme://host/path`, or nil when the alternate carries no scheme.
    public var deepLink: String? {
        guard let scheme, !scheme.isEmpty else { return nil }
        return "\(scheme)://\(host ?? "")\(path ?? "")"
    }

    public init?(href: String) {
        let trimmed = href.trimmingASCIIWhitespace()
        let lower = trimmed.lowercased()
        let rest: Substring
        if lower.hasPrefix("android-app://") {
            platform = .android
            rest = trimmed.dropFirst("android-app://".count)
        } else if lower.hasPrefix("ios-app://") {
            platform = .ios
            rest = trimmed.dropFirst("ios-app://".count)
        } else {
            return nil
        }
        // An intent-URI fragment (#Intent;…) is not part of the deep link.
        let withoutFragment = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? rest
        let parts = withoutFragment.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard let first = parts.first, !first.isEmpty else { return nil }
        self.href = trimmed
        if platform == .ios {
            guard let id = AppStoreID.normalize(String(first)) else { return nil }
            appID = id
        } else {
            appID = String(first)
        }
        scheme = parts.count > 1 && !parts[1].isEmpty ? String(parts[1]) : nil
        if parts.count > 2, !parts[2].isEmpty {
            let hostPath = parts[2]
            if let slash = hostPath.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                host = String(hostPath[..<slash])
                path = String(hostPath[slash...])
            } else {
                host = String(hostPath)
            }
        }
    }
}
