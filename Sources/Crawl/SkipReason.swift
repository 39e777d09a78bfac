import Fetch
import WebRules

/// Why a URL was not indexed (or not fetched, or a host file not read): the keys of the run
/// report's `skipped` object. A struct with static values rather than text compared at
/// use, so that a reason is named once and new ones can be added.
public struct SkipReason: Hashable, Sendable, CustomStringConvertible {
    /// The label in run reports (`robots`, `http-404`, `sitemap-too-large`…).
    public let label: String

    private init(_ label: String) { self.label = label }

    public var description: String { label }

    public static let robots = SkipReason("robots")
    public static let robotsUnreachable = SkipReason("robots-unreachable")
    public static let robotsUnreachableCachedCopyUsed = SkipReason("robots-unreachable-cached-copy-used")
    public static let noindex = SkipReason("noindex")
    public static let canonical = SkipReason("canonical")
    public static let duplicate = SkipReason("duplicate")
    /// Text within 3 SimHash bits of a page of the host already indexed.
    public static let nearDuplicate = SkipReason("near-duplicate")
    /// Not fetched: its URL template's pages stopped bringing new content.
    public static let trapPattern = SkipReason("trap-pattern")
    public static let notHTML = SkipReason("not-html")
    public static let outOfScope = SkipReason("out-of-scope")
    public static let redirectOutOfScope = SkipReason("redirect-out-of-scope")
    public static let redirectWithoutLocation = SkipReason("redirect-without-location")
    public static let tooManyRedirects = SkipReason("too-many-redirects")
    public static let tooDeep = SkipReason("too-deep")
    public static let throttled = SkipReason("throttled")
    public static let hostBackingOff = SkipReason("host-backing-off")
    public static let failingBeyondGracePeriod = SkipReason("failing-beyond-grace-period")
    public static let warcWriteError = SkipReason("warc-write-error")
    public static let refusedAddress = SkipReason("refused-address")
    public static let sitemapInvalid = SkipReason("sitemap-invalid")
    /// A page whose item breaks the item contract even cleaned (an identifier past the URL
    /// limit): not indexed, rather than indexed unchecked.
    public static let invalidItem = SkipReason("invalid-item")

    /// Every reason of a fixed name: what ``isKnown(_:)`` checks a label against.
    static let named: [SkipReason] = [
        .robots, .robotsUnreachable, .robotsUnreachableCachedCopyUsed, .noindex, .canonical, .duplicate, .nearDuplicate, .trapPattern, .notHTML,
        .outOfScope, .redirectOutOfScope, .redirectWithoutLocation, .tooManyRedirects, .tooDeep, .throttled, .hostBackingOff,
        .failingBeyondGracePeriod, .warcWriteError, .refusedAddress, .sitemapInvalid, .invalidItem,
    ]

    /// Whether a run report could name `label`: a reason of a fixed name, an HTTP status
    /// (`http-100`…`http-599`), a fetch failure, a URL trap, or a sitemap's reason.
    public static func isKnown(_ label: String) -> Bool {
        if named.contains(where: { $0.label == label }) || FetchError.Kind(rawValue: label) != nil || URLTrap(rawValue: label) != nil { return true }
        if label.hasPrefix("sitemap-") { return true }
        if label.hasPrefix("http-"), let status = Int(label.dropFirst(5)), (100...599).contains(status) { return true }
        return false
    }

    /// Labels a person might have meant: every reason of a fixed name, each fetch failure and
    /// URL trap, and the commonest statuses.
    public static var knownLabels: [String] {
        named.map(\.label) + FetchError.Kind.allCases.map(\.rawValue) + URLTrap.allCases.map(\.rawValue) + ["http-404", "http-500"]
    }

    /// An HTTP status that is no page: `http-404`, `http-500`…
    public static func http(_ status: Int) -> SkipReason { SkipReason("http-\(status)") }

    /// A fetch that failed: `timeout`, `too-large`, `tls`…
    public static func fetch(_ error: FetchError) -> SkipReason { SkipReason(error.reason) }

    /// A URL shaped like an endless URL space.
    public static func trap(_ trap: URLTrap) -> SkipReason { SkipReason(trap.rawValue) }

    /// What a sitemap's reading skipped (`sitemap-too-large`, `sitemap-http-500`, or one of
    /// the sitemap parser's own reasons).
    public static func sitemap(_ reason: SkipReason) -> SkipReason { SkipReason("sitemap-" + reason.label) }
    public static func sitemap(parser reason: String) -> SkipReason { SkipReason("sitemap-" + reason) }
}
