import WebURL

/// Everything Searchlight reads from one HTML page: the basics, every app and deep-link
/// markup family, structured data, outlinks and a bounded excerpt of the visible text.
///
/// Produced by ``MarkupExtractor`` from bytes, a URL and response headers, with no I/O.
public struct PageMarkup: Sendable, Hashable {
    /// The page's URL, when known (a local file has none unless a base URL is given).
    public var url: WebURL?
    /// The URL relative references resolve against: `<base href>` if any, else ``url``.
    public var baseURL: WebURL?
    public var charset: CharsetDecision

    // MARK: basics
    /// `<title>`, whitespace collapsed.
    public var title: String?
    /// `<meta name="description">`.
    public var metaDescription: String?
    /// `<meta name="keywords">`, split on commas.
    public var keywords: [String] = []
    /// `<html lang>`, else `Content-Language`, else `<meta http-equiv="content-language">`.
    public var language: String?
    /// `<link rel="canonical">`, resolved. A hint, not a directive.
    public var canonicalURL: WebURL?
    public var robots = RobotsDirectives()
    public var hreflangAlternates: [HreflangAlternate] = []
    public var icons: [PageIcon] = []
    /// The first `<h1>`, whitespace collapsed.
    public var headline: String?

    // MARK: app and deep-link markup
    public var smartAppBanner: SmartAppBanner?
    public var appLinks: AppLinks?
    public var twitterCard: TwitterCard?
    public var appAlternates: [AppAlternate] = []

    // MARK: structured data
    public var openGraph: OpenGraph?
    /// Every schema.org entity, JSON-LD and microdata, in document order.
    public var schemaObjects: [SchemaObject] = []
    public var schema = SchemaSummary()

    // MARK: text and links
    public var outlinks: [Outlink] = []
    /// The page's main content (``MainText``): its text without menus, sidebars and footers,
    /// a line per block, cut at ``MarkupExtractor/Options/mainTextLimit`` bytes.
    public var bodyText = ""
    /// The first ``MarkupExtractor/Options/bodyTextLimit`` bytes of all the visible text of
    /// the body (no script, style or template), whitespace collapsed: the page's fingerprint
    /// for near-duplicates.
    public var visibleText = ""
    /// The page's text as blocks, and which of them are the main content.
    public var mainText = MainText.empty
    public var warnings: [ExtractionWarning] = []
    /// The scripts a browser would run, and a framework mount point left empty for them.
    public var scriptSignals = ScriptSignals()
    /// Where each `<meta name|property>` sits, for findings that point at it.
    public var metaTagLocations: [MetaTagLocation] = []

    public init(url: WebURL?, charset: CharsetDecision) {
        self.url = url
        self.baseURL = url
        self.charset = charset
    }

    /// True when the page carries any app or deep-link markup.
    public var hasAppMarkup: Bool {
        smartAppBanner != nil || appLinks != nil || !(twitterCard?.apps.isEmpty ?? true) || !appAlternates.isEmpty
            || !schema.deepLinks.isEmpty
    }
}
