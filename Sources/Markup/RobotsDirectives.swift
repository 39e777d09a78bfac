import TextUtilities
import WebURL
import FoundationEssentials

/// Indexing directives from `<meta name="robots">`, `<meta name="searchlightbot">` and
/// the `X-Robots-Tag` header, merged.
///
/// Rules (Google's robots meta documentation, which Apple follows for Applebot): names and
/// values are case-insensitive; `none` means `noindex, nofollow`; several tags and
/// headers combine and **the most restrictive directive wins**; a header value may be
/// prefixed by a user agent (`X-Robots-Tag: otherbot: noindex`), which applies the rest of
/// that value to that agent only, so only unprefixed and `searchlightbot:` directives count.
public struct RobotsDirectives: Sendable, Hashable {
    public var noindex = false
    public var nofollow = false
    public var nosnippet = false
    public var noarchive = false
    public var noimageindex = false
    public var notranslate = false
    /// `max-snippet:N`; -1 means no limit.
    public var maxSnippet: Int?
    /// `max-image-preview:none|standard|large`.
    public var maxImagePreview: String?
    /// `max-video-preview:N`; -1 means no limit.
    public var maxVideoPreview: Int?
    /// `unavailable_after:` as written.
    public var unavailableAfter: String?
    /// `unavailable_after` parsed (RFC 822/850, ISO 8601 and the forms Google shows).
    public var unavailableAfterDate: Date?
    /// Where each `noindex` (or `none`) came from, as written: `<meta name="robots">`,
    /// `X-Robots-Tag: searchlightbot: noindex`…, for a site owner asking why.
    public var noindexSources: [String] = []

    public init() {}

    /// The product token whose meta tags and header prefixes Searchlight obeys.
    public static let productToken = "searchlightbot"

    /// True when the page may not be indexed at `date`.
    public func forbidsIndexing(at date: Date) -> Bool {
        noindex || (unavailableAfterDate.map { date >= $0 } ?? false)
    }

    /// Applies a `<meta name="robots|searchlightbot" content="…">` value.
    public mutating func apply(metaContent content: String, name: String = "robots") {
        for directive in content.split(separator: ",") {
            apply(directive: directive.trimmingASCIIWhitespace(), source: "<meta name=\"\(name)\" content=\"\(content)\">")
        }
    }

    /// Applies one `X-Robots-Tag` header value.
    public mutating func apply(headerValue value: String) {
        var appliesToUs = true
        for part in value.split(separator: ",") {
            var directive = part.trimmingASCIIWhitespace()
            if let colon = directive.firstIndex(of: ":") {
                let head = directive[..<colon].trimmingASCIIWhitespace().lowercased()
                if !Self.valuedDirectives.contains(head), !Self.knownDirectives.contains(head) {
                    // "agent: directive": the rest of this header value is for that agent.
                    appliesToUs = head == Self.productToken
                    directive = directive[directive.index(after: colon)...].trimmingASCIIWhitespace()
                    if directive.isEmpty { continue }
                }
            }
            if appliesToUs { apply(directive: directive, source: "X-Robots-Tag: \(value)") }
        }
    }

    private static let knownDirectives: Set<String> = [
        "all", "index", "follow", "noindex", "nofollow", "none", "nosnippet", "noarchive", "nocache",
        "noimageindex", "notranslate",
    ]
    private static let valuedDirectives: Set<String> = ["max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"]

    private mutating func apply(directive: String, source: String) {
        let lower = directive.lowercased()
        if lower == "noindex" || lower == "none", !noindexSources.contains(source), noindexSources.count < 8 {
            noindexSources.append(String(source.prefix(300)))
        }
        switch lower {
        case "noindex": noindex = true
        case "nofollow": nofollow = true
        case "none": noindex = true; nofollow = true
        case "nosnippet": nosnippet = true
        case "noarchive", "nocache": noarchive = true
        case "noimageindex": noimageindex = true
        case "notranslate": notranslate = true
        default:
            guard let colon = lower.firstIndex(of: ":") else { return }
            let name = lower[..<colon].trimmingASCIIWhitespace()
            let rawValue = directive[directive.index(after: colon)...].trimmingASCIIWhitespace()
            switch name {
            case "max-snippet":
                if let n = Int(rawValue) { maxSnippet = Self.moreRestrictive(maxSnippet, n) }
            case "max-video-preview":
                if let n = Int(rawValue) { maxVideoPreview = Self.moreRestrictive(maxVideoPreview, n) }
            case "max-image-preview":
                let order = ["none", "standard", "large"]
                let value = rawValue.lowercased()
                guard let rank = order.firstIndex(of: value) else { return }
                if let current = maxImagePreview.flatMap(order.firstIndex(of:)), current <= rank { return }
                maxImagePreview = value
            case "unavailable_after":
                guard let date = Self.parseDate(rawValue) else {
                    if unavailableAfter == nil { unavailableAfter = rawValue }
                    return
                }
                if let current = unavailableAfterDate, current <= date { return }
                unavailableAfter = rawValue
                unavailableAfterDate = date
            default:
                return
            }
        }
    }

    /// Of two limits where -1 means "no limit", the smaller real limit.
    private static func moreRestrictive(_ current: Int?, _ new: Int) -> Int {
        guard let current else { return new }
        if current < 0 { return new }
        if new < 0 { return current }
        return min(current, new)
    }

    /// Reads the date formats `unavailable_after` is written in: ISO 8601 (Google's
    /// documentation uses it) or the HTTP and mail forms (`25 Jun 2026 15:00:00 PST`).
    static func parseDate(_ text: String) -> Date? {
        if let seconds = ISO8601.seconds(from: text.trimmingASCIIWhitespace()) ?? HTTPDate.seconds(from: text) {
            return Date(timeIntervalSince1970: seconds)
        }
        return nil
    }
}
