import Markup

/// What a browser adds to a page: the markup read from its static HTML against the markup
/// read from its rendered document, as sentences for the site's owner (`validate`,
/// `extract --render`). Pure.
public enum RenderDifference {
    public static func notes(static before: PageMarkup, rendered after: PageMarkup) -> [String] {
        var notes: [String] = []
        if before.smartAppBanner == nil, after.smartAppBanner != nil {
            notes.append("the Smart App Banner appears only after scripts run: Safari and Applebot's renderer see it, crawlers that read the HTML do not")
        }
        if before.appLinks == nil, after.appLinks != nil {
            notes.append("the App Links tags are written by a script: Facebook's and most link-preview crawlers do not run scripts and miss them")
        }
        if (before.twitterCard?.apps.isEmpty ?? true), !(after.twitterCard?.apps.isEmpty ?? true) {
            notes.append("the Twitter/X app card is written by a script: X's crawler does not run scripts and misses it")
        }
        if before.appAlternates.isEmpty, !after.appAlternates.isEmpty {
            notes.append("the ios-app:// / android-app:// alternates are written by a script")
        }
        let jsonLD = { (markup: PageMarkup) in markup.schemaObjects.count { $0.source == .jsonLD } }
        if jsonLD(after) > jsonLD(before) {
            notes.append("the JSON-LD is injected by a script (\(jsonLD(after) - jsonLD(before)) object(s)): Google reads it, strict parsers do not")
        }
        if before.title != after.title, let title = after.title {
            notes.append("the title is set by a script: \"\(before.title ?? "")\" in the HTML, \"\(title)\" rendered")
        }
        if before.canonicalURL != after.canonicalURL, let canonical = after.canonicalURL {
            notes.append("the canonical URL is set by a script (\(canonical.string)); Google may read the HTML's first")
        }
        if !before.robots.forbidsIndexing(at: .now), after.robots.forbidsIndexing(at: .now) {
            notes.append("a noindex appears only after scripts run: the page is not indexed")
        }
        let words = { (markup: PageMarkup) in markup.bodyText.split(whereSeparator: \.isWhitespace).count }
        if words(after) > 2 * words(before) + 20 {
            notes.append("the main text is written by scripts: \(words(after)) words rendered, \(words(before)) in the HTML")
        }
        if after.outlinks.count > before.outlinks.count {
            notes.append("\(after.outlinks.count - before.outlinks.count) link(s) exist only after scripts run")
        }
        return notes
    }
}
