import FoundationEssentials
import TextUtilities
import WebURL

/// The URL a crawl stores and deduplicates by: ``WebURL``'s normal form without the
/// fragment, without tracking parameters (`utm_*`, `fbclid`, `gclid`…) unless asked to
/// keep them, and without session identifiers (`;jsessionid=…`, `PHPSESSID`, `sessionid`).
public struct FrontierKey: Sendable {
    public var keepsTrackingParameters: Bool

    public init(keepsTrackingParameters: Bool = false) {
        self.keepsTrackingParameters = keepsTrackingParameters
    }

    static let trackingParameters: Set<String> = [
        "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "mc_cid", "mc_eid", "igshid", "_hsenc", "_hsmi",
    ]
    static let sessionParameters: Set<String> = ["jsessionid", "phpsessid", "sessionid", "session_id", "aspsessionid", "sid_session"]

    public func key(for url: WebURL) -> WebURL {
        var url = url.withoutFragment
        // Most URLs have neither a `;` in the path nor a query: check bytes before anything else.
        if url.path.utf8.contains(UInt8(ascii: ";")), let semicolon = url.path.rangeOfASCIICaseInsensitive(";jsessionid=") {
            let path = String(url.path[..<semicolon.lowerBound])
            url = WebURL(url.origin + path + (url.query.map { "?" + $0 } ?? "")) ?? url
        }
        guard let query = url.query else { return url }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        let kept = pairs.filter { pair in !pair.isEmpty && !dropsParameter(named: pair.prefix { $0 != "=" }) }
        guard kept.count != pairs.count else { return url }
        return url.replacingQuery(kept.isEmpty ? nil : kept.joined(separator: "&"))
    }

    private func dropsParameter(named name: Substring) -> Bool {
        // Every listed name is ASCII and short: skip the lowercasing for anything else.
        guard name.utf8.count <= 16 else { return false }
        let lowered = name.lowercased()
        if Self.sessionParameters.contains(lowered) { return true }
        if keepsTrackingParameters { return false }
        return lowered.hasPrefix("utm_") || Self.trackingParameters.contains(lowered)
    }
}

/// Shapes of URL that lead into endless URL spaces (Heritrix's pathological-path rules):
/// overlong URLs, very deep paths, and a path segment repeated more than twice
/// (`/a/b/a/b/a/b/`). Calendars and other query-driven spaces are held by the crawl's
/// per-host and per-path caps instead.
public enum URLTrap: String, Sendable, Hashable, CaseIterable {
    case urlTooLong = "url-too-long"
    case tooDeepPath = "too-deep-path"
    case repeatedPathSegment = "repeated-path-segment"

    public static let maximumLength = 2048
    public static let maximumSegments = 20
    public static let maximumRepeats = 2

    /// Which trap `url` looks like, or nil.
    public static func check(_ url: WebURL) -> URLTrap? {
        if url.string.utf8.count > maximumLength { return .urlTooLong }
        let path = url.pathUTF8
        // Most paths have too few segments to repeat any: counted without splitting.
        guard path.lazy.filter({ $0 == UInt8(ascii: "/") }).count > maximumRepeats else { return nil }
        let segments = path.split(separator: UInt8(ascii: "/"))
        if segments.count > maximumSegments { return .tooDeepPath }
        guard segments.count > maximumRepeats else { return nil }
        // At most 20 segments: comparing pairs costs less than hashing them.
        for (index, segment) in segments.enumerated() {
            var repeats = 1
            for other in segments[(index + 1)...] where other.elementsEqual(segment) {
                repeats += 1
                if repeats > maximumRepeats { return .repeatedPathSegment }
            }
        }
        return nil
    }
}
