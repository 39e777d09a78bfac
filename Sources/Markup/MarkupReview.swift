import TextUtilities
/// What a site owner should fix in a page's app and structured markup: each family checked
/// against its own specification (Apple's Smart App Banner, applinks.org, X's app card,
/// the Open Graph protocol, schema.org), plus the extraction warnings sorted by family.
/// Pure: a function of the ``PageMarkup``.
public struct MarkupFinding: Sendable, Hashable {
    public enum Level: String, Sendable, Hashable {
        /// The family does not work as written: no banner, no app action.
        case error
        /// Works, but not as the owner probably meant.
        case warning
        /// Worth knowing.
        case note
    }

    /// `smart-app-banner`, `app-links`, `twitter-card`, `alternates`, `open-graph`,
    /// `schema.org`, `microdata`, `html`, `charset`, `app-markup`.
    public var family: String
    public var level: Level
    public var message: String
    public var line: Int?
    public var column: Int?

    public init(_ family: String, _ level: Level, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.family = family
        self.level = level
        self.message = message
        self.line = line
        self.column = column
    }

    /// A finding about the tag at `location`.
    init(_ family: String, _ level: Level, _ message: String, at location: SourceLocation?) {
        self.init(family, level, message, line: location?.line, column: location?.column)
    }
}

public enum MarkupReview {
    public static func findings(_ markup: PageMarkup) -> [MarkupFinding] {
        var findings: [MarkupFinding] = []
        if let banner = markup.smartAppBanner { findings += review(banner, at: markup.location(ofMeta: "apple-itunes-app")) }
        if let links = markup.appLinks { findings += review(links, in: markup) }
        if let card = markup.twitterCard { findings += review(card, in: markup) }
        for alternate in markup.appAlternates where alternate.scheme == nil {
            findings.append(MarkupFinding("alternates", .note, "\(alternate.href) names no scheme: it opens the app, not this page in it"))
        }
        if let graph = markup.openGraph {
            let missing = [("og:title", graph.title), ("og:type", graph.type), ("og:url", graph.url), ("og:image", graph.images.first?.url)]
                .filter { $0.1 == nil }.map(\.0)
            if !missing.isEmpty {
                findings.append(MarkupFinding("open-graph", .warning, "missing \(missing.joined(separator: ", ")), which the protocol requires",
                                              at: markup.location(ofMetaPrefix: "og:")))
            }
        }
        if !markup.schema.types.isEmpty {
            findings.append(MarkupFinding("schema.org", .note, "types: \(markup.schema.types.prefix(12).joined(separator: ", "))"))
        }
        for warning in markup.warnings {
            findings.append(MarkupFinding(family(of: warning.code), warning.code == .notHTML ? .error : .warning, warning.message,
                                          line: warning.line, column: warning.column))
        }
        if !markup.hasAppMarkup {
            findings.append(MarkupFinding("app-markup", .warning,
                                          "no app markup (Smart App Banner, App Links, app card, app alternates or schema.org actions): "
                                              + "results offer the web page only"))
        }
        return findings
    }

    static func review(_ banner: SmartAppBanner, at location: SourceLocation?) -> [MarkupFinding] {
        var findings: [MarkupFinding] = []
        if banner.appStoreID == nil {
            let message = banner.appID.map { id -> String in
                // Point at the first character that is not a digit (`12345678O`: the letter O).
                let bad = id.enumerated().first { !$0.element.isASCII || !$0.element.isNumber }
                return "app-id '\(id)' is not a numeric App Store id: Safari shows no banner"
                    + (bad.map { " (character \($0.offset + 1), '\($0.element)', is not a digit)" } ?? "")
            } ?? "no app-id: Safari shows no banner"
            findings.append(MarkupFinding("smart-app-banner", .error, message, at: location))
        }
        if let argument = banner.appArgument, !argument.contains(":") {
            findings.append(MarkupFinding("smart-app-banner", .warning, "app-argument '\(argument)' is not a URL; the app receives it as written",
                                          at: location))
        }
        if !banner.otherParameters.isEmpty {
            let pairs = banner.otherParameters.map { parameter in
                "\(parameter.key)=\(parameter.value)"
                    + (Suggestion.nearest(to: parameter.key, in: SmartAppBanner.knownKeys).map { " (did you mean '\($0)'?)" } ?? "")
            }.joined(separator: ", ")
            findings.append(MarkupFinding("smart-app-banner", .warning, "not understood: \(pairs)", at: location))
        }
        return findings
    }

    static func review(_ links: AppLinks, in markup: PageMarkup) -> [MarkupFinding] {
        var findings: [MarkupFinding] = []
        let known = AppLinks.fields.flatMap { platform, fields in fields.map { "al:\(platform):\($0)" } }.sorted()
        for property in links.unknownProperties {
            let suggestion = Suggestion.nearest(to: property, in: known)
            findings.append(MarkupFinding("app-links", .error, "'\(property)' is not an App Links property"
                + (suggestion.map { "; did you mean '\($0)'?" } ?? ""), at: markup.location(ofMeta: property)))
        }
        for target in links.targets {
            let prefix = "al:\(target.platform.rawValue)"
            let location = markup.location(ofMetaPrefix: prefix + ":")
            if target.platform.isApple {
                if target.url == nil {
                    findings.append(MarkupFinding("app-links", .error, "\(prefix) has no url: the app cannot open this page", at: location))
                }
                if target.appStoreID == nil {
                    findings.append(MarkupFinding(
                        "app-links", .warning,
                        "\(prefix) has no app_store_id: a result cannot tell which app \(prefix):url belongs to, so a tap opens the web page "
                            + "even where the app is installed, and people without it get no store page", at: location))
                }
            } else if target.platform == .android {
                if target.package == nil { findings.append(MarkupFinding("app-links", .error, "\(prefix):package is required", at: location)) }
                if target.url == nil {
                    findings.append(MarkupFinding("app-links", .note, "\(prefix) has no url: the app opens at its start", at: location))
                }
            }
        }
        if !links.shouldFallbackToWeb {
            findings.append(MarkupFinding("app-links", .note, "al:web:should_fallback is false: without the app, a tap offers the store",
                                          at: markup.location(ofMeta: "al:web:should_fallback")))
        }
        return findings
    }

    static func review(_ card: TwitterCard, in markup: PageMarkup) -> [MarkupFinding] {
        var findings: [MarkupFinding] = []
        if card.card == "app", card.apps.isEmpty {
            findings.append(MarkupFinding("twitter-card", .error, "an app card needs twitter:app:id:iphone, :ipad or :googleplay",
                                          at: markup.location(ofMeta: "twitter:card")))
        }
        for app in card.apps {
            let name = "twitter:app:id:\(app.platform.rawValue)"
            let location = markup.location(ofMeta: name) ?? markup.location(ofMetaPrefix: "twitter:app:")
            if app.id == nil {
                findings.append(MarkupFinding("twitter-card", .error, app.platform == .googleplay ? "\(name) is missing" : "\(name) is missing or not a number",
                                              at: location))
            }
            if app.url == nil {
                findings.append(MarkupFinding("twitter-card", .note, "no twitter:app:url:\(app.platform.rawValue): the app opens at its start",
                                              at: location))
            }
        }
        return findings
    }

    static func family(of code: ExtractionWarning.Code) -> String {
        switch code {
        case .jsonLDRepaired, .jsonLDInvalid: "schema.org"
        case .microdata: "microdata"
        case .unknownCharset, .invalidBytes: "charset"
        case .malformedHTML, .notHTML: "html"
        default: "markup"
        }
    }
}
