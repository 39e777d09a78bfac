import Markup

/// The readable form of a ``PageMarkup`` for `searchlight extract`: one section per markup
/// family that the page has, and nothing for those it lacks.
struct PageMarkupSummary {
    let markup: PageMarkup
    /// Show every block of text with its main-text verdict.
    let explain: Bool

    init(_ markup: PageMarkup, explain: Bool = false) {
        self.markup = markup
        self.explain = explain
    }

    var text: String {
        var lines: [String] = []
        func field(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            lines.append("  \(name.padding(16))\(value)")
        }
        func section(_ title: String) {
            if !lines.isEmpty { lines.append("") }
            lines.append(title)
        }

        section("Page")
        field("URL", markup.url?.string)
        if markup.baseURL != markup.url { field("Base URL", markup.baseURL?.string) }
        field("Charset", "\(markup.charset.encoding) (from \(markup.charset.source.rawValue))")
        field("Title", markup.title)
        field("Description", markup.metaDescription)
        field("Keywords", markup.keywords.isEmpty ? nil : markup.keywords.joined(separator: ", "))
        field("Language", markup.language)
        field("Canonical", markup.canonicalURL?.string)
        field("Headline", markup.headline)
        field("Robots", robotsText)
        for alternate in markup.hreflangAlternates { field("hreflang \(alternate.hreflang)", alternate.url.string) }
        for icon in markup.icons { field(icon.rel, icon.url.string + (icon.sizes.map { " (\($0))" } ?? "")) }

        if let banner = markup.smartAppBanner {
            section("Smart App Banner (apple-itunes-app)")
            field("App Store id", banner.appStoreID ?? banner.appID.map { "\($0) (not numeric)" })
            field("App argument", banner.appArgument)
            field("Affiliate data", banner.affiliateData)
            field("App Clip", banner.appClipBundleID)
            field("App Clip display", banner.appClipDisplay)
            for parameter in banner.otherParameters { field(parameter.key, parameter.value) }
        }
        if let appLinks = markup.appLinks {
            section("App Links (al:*)")
            for target in appLinks.targets {
                let id = target.appStoreID.map { "App Store \($0)" } ?? target.package ?? target.appID ?? "-"
                field(target.platform.rawValue, [target.url ?? "(no url)", id, target.appName].compactMap { $0 }.joined(separator: "  "))
            }
            field("web", appLinks.webURL)
            if !appLinks.shouldFallbackToWeb { field("web fallback", "forbidden (al:web:should_fallback=false)") }
        }
        if let card = markup.twitterCard {
            section("Twitter/X card")
            field("Card", card.card)
            field("Title", card.title)
            field("Country", card.appCountry)
            for app in card.apps {
                field(app.platform.rawValue, [app.url ?? "(no url)", app.id ?? "-", app.name].compactMap { $0 }.joined(separator: "  "))
            }
        }
        if !markup.appAlternates.isEmpty {
            section("App alternates (<link rel=alternate>)")
            for alternate in markup.appAlternates {
                field("\(alternate.platform.rawValue) \(alternate.appID)", alternate.deepLink ?? "(opens the app)")
            }
        }
        if let og = markup.openGraph {
            section("Open Graph")
            field("Title", og.title)
            field("Type", og.type)
            field("URL", og.url)
            field("Description", og.description)
            field("Site", og.siteName)
            for image in og.images { field("Image", image.bestURL) }
            for video in og.videos { field("Video", video.bestURL) }
            for audio in og.audios { field("Audio", audio.bestURL) }
        }
        if !markup.schemaObjects.isEmpty {
            section("schema.org")
            let counts = Dictionary(grouping: markup.schemaObjects, by: \.source).map { "\($0.value.count) \($0.key.rawValue)" }.sorted()
            field("Entities", counts.joined(separator: ", "))
            let schema = markup.schema
            field("Main entity", schema.types.joined(separator: ", "))
            field("Name", schema.name)
            field("Description", schema.description)
            field("Image", schema.images.first)
            if let rating = schema.rating {
                field("Rating", "\(rating.value)" + (rating.count.map { " from \($0) ratings" } ?? ""))
            }
            if let offer = schema.offer { field("Price", [offer.price, offer.currency].compactMap { $0 }.joined(separator: " ")) }
            field("Telephone", schema.telephone)
            field("Address", schema.address?.formatted)
            for interaction in schema.interactions { field(interaction.type, String(interaction.count)) }
            field("Media", schema.mediaURL)
            if let search = schema.searchAction { field("Search", search.targets.first?.urlTemplate) }
            for link in schema.deepLinks { field("Deep link \(link.platform.rawValue)", link.url) }
        }
        section("Links")
        let followed = markup.outlinks.filter { !$0.rel.contains(.nofollow) }.count
        field("Outlinks", "\(markup.outlinks.count) (\(markup.outlinks.count - followed) nofollow)")
        for link in markup.outlinks.prefix(10) {
            lines.append("    \(link.url.string)" + (link.text.isEmpty ? "" : "  \"\(link.text.prefix(60))\""))
        }
        if markup.outlinks.count > 10 { lines.append("    … \(markup.outlinks.count - 10) more (see --json)") }
        if !markup.bodyText.isEmpty {
            section("Main text (\(markup.bodyText.utf8.count) bytes)")
            lines.append("  " + String(markup.bodyText.prefix(240)).replacingOccurrences(of: "\n", with: " ¶ ")
                + (markup.bodyText.count > 240 ? "…" : ""))
        }
        if explain {
            section("Blocks")
            for (text, verdict) in markup.mainText.explained() {
                let mark = verdict == .content ? "+" : "-"
                lines.append("  \(mark) \(verdict.rawValue.padding(16))\(text.prefix(100))\(text.count > 100 ? "…" : "")")
            }
        }
        if !markup.warnings.isEmpty {
            section("Warnings")
            for warning in markup.warnings { lines.append("  - \(warning)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private var robotsText: String? {
        let r = markup.robots
        var parts: [String] = []
        if r.noindex { parts.append("noindex") }
        if r.nofollow { parts.append("nofollow") }
        if r.nosnippet { parts.append("nosnippet") }
        if r.noarchive { parts.append("noarchive") }
        if let n = r.maxSnippet { parts.append("max-snippet:\(n)") }
        if let after = r.unavailableAfter { parts.append("unavailable_after: \(after)") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
