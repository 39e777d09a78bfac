import Foundation
import ItemMapping
import Items
import Markup
import TextUtilities
import WebRules
import WebURL

/// Builds the ``SearchableItem`` for a crawled page from its ``PageMarkup``.
///
/// Precedence, first present wins:
/// - title: schema.org name/headline, `og:title`, `twitter:title`, `<title>`, the first `<h1>`,
///   the URL;
/// - description: schema.org description, `og:description`, `twitter:description`,
///   `<meta name=description>`, the start of the body text;
/// - thumbnail: schema.org image, `og:image` (its secure URL first), `twitter:image`, the
///   largest `apple-touch-icon`, any other icon;
/// - content type: the schema.org main entity's type, `og:type`.
///
/// Apps are merged into one list per platform from every family, the most authoritative
/// first: a verified universal link, the Smart App Banner's app-argument, App Links,
/// the Twitter app card, `ios-app://`/`android-app://` alternates, schema.org actions.
/// Entries name the same app when their App Store id (iOS) or package (Android) agree;
/// an entry with no id joins the platform's first app. A field already set by a more
/// authoritative source is kept.
///
/// The item's id (``identifier(for:url:)``) is the page's canonical URL when it points
/// within the same site (the same host, give or take `www.`), else the page URL; the
/// caller computes it once, in the crawl's normal form, and hands it in.
///
/// Universal links: an iOS app is one when the site's apple-app-site-association file
/// claims the item's URL for it; an Android app when the site's assetlinks.json lets its
/// package handle all the site's https URLs.
public struct ItemBuilder: Sendable {
    /// How long a crawled item lives unless it is confirmed again (CoreSpotlight's default
    /// of one month).
    public var timeToLive: TimeInterval = SearchableItem.defaultLifetime
    /// Bytes of body text kept for recall.
    public var bodyTextLimit = SearchableItem.crawledTextBytes
    /// The site owner's templates (`crawl --mapping`): a page whose schema.org object is of
    /// a mapped type (`"entity": "Recipe"`) reads as the mapping says.
    public var mappings: MappingSet?

    public init() {}

    /// The site's association files, as the crawl found them.
    public struct Associations: Sendable {
        public var apple: AppSiteAssociation?
        public var android: AssetLinks?

        public init(apple: AppSiteAssociation? = nil, android: AssetLinks? = nil) {
            self.apple = apple
            self.android = android
        }
    }

    /// - Parameters:
    ///   - url: the final URL the page was fetched from.
    ///   - identifier: the item's id, from ``identifier(for:url:)``; the page URL when nil.
    ///   - template: fingerprints of main-text blocks the site repeats on its pages, left out
    ///     of the body (``MainText/contentHashes()``).
    ///   - rendered: the markup is a browser's rendering of the page, not the HTML as sent.
    /// - Throws: the rule the page's item breaks even cleaned (``SearchableItem/validated(_:now:)``
    ///   with the crawled policy): such a page is not indexed.
    public func item(for markup: PageMarkup, url: WebURL, identifier: WebURL? = nil, associations: Associations = Associations(),
                     now: Date = Date(), template: Set<UInt64> = [], rendered: Bool = false) throws(SearchableItem.Problem) -> ValidItem
    {
        let id = identifier ?? Self.identifier(for: markup, url: url)
        let universalLinkAppIDs = associations.apple?.appIDs(claiming: id) ?? []
        let og = markup.openGraph
        let card = markup.twitterCard
        let schema = markup.schema
        let resolve: (String) -> String? = { reference in
            WebURL(reference, relativeTo: markup.baseURL ?? url)?.string
        }
        let title = [schema.name, og?.title, card?.title, markup.title, markup.headline].lazy.compactMap { $0 }
            .first { !$0.isEmpty } ?? id.string
        let description = [schema.description, og?.description, card?.description, markup.metaDescription].lazy
            .compactMap { $0 }.first { !$0.isEmpty } ?? Self.withoutHeadline(markup.bodyText, markup.headline).prefix(utf8Bytes: 300)
        let rating = Self.rating(schema.rating)
        let icon = markup.icons.filter(\.isAppleTouchIcon).max { $0.largestSide < $1.largestSide } ?? markup.icons.first
        let thumbnail = schema.images.first
            ?? og?.images.lazy.compactMap(\.bestURL).compactMap(resolve).first
            ?? card?.image.flatMap(resolve)
            ?? icon?.url.string
        var item = SearchableItem(
            uniqueIdentifier: id.string,
            domainIdentifier: ReverseDNS.name(forHost: id.host),
            contentType: schema.types.first ?? og?.type,
            title: Self.normalized(title),
            contentDescription: description.isEmpty ? nil : Self.normalized(description),
            keywords: Array(markup.keywords.prefix(32)),
            thumbnailURL: thumbnail,
            webURL: id.string,
            rating: rating.value,
            ratingScale: rating.scale,
            ratingCount: rating.count,
            price: schema.offer?.price,
            currency: schema.offer?.currency,
            telephone: schema.telephone,
            address: schema.address?.formatted,
            apps: Self.apps(for: markup, universalLinkAppIDs: universalLinkAppIDs,
                            androidPackages: id.isHTTPS ? associations.android?.packages ?? [] : []),
            allowsWebFallback: markup.appLinks?.shouldFallbackToWeb ?? true,
            bodyText: Self.normalized(template.isEmpty ? markup.bodyText.prefix(utf8Bytes: bodyTextLimit)
                : markup.mainText.selected(maximumBytes: bodyTextLimit, excluding: template)),
            expirationDate: now.addingTimeInterval(timeToLive),
            source: .crawled,
            lastUpdated: now,
            language: markup.language)
        // The item contract for a page: text cleaned and cut, a value that breaks a rule (a
        // rating off its scale, a thumbnail that is not http(s)) left out.
        item.location = schema.coordinates.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) }
        item.rendered = rendered
        return try mapped(item, markup: markup, now: now).validated(.crawled, now: now)
    }

    /// The item with its mapping applied, for the first schema.org object of a mapped type.
    func mapped(_ item: SearchableItem, markup: PageMarkup, now: Date) -> SearchableItem {
        guard let mappings else { return item }
        for object in markup.schemaObjects {
            for type in object.types {
                if let mapping = mappings.mappings.first(where: { $0.entity == type }) {
                    return ItemRenderer.overlay(mapping, on: item, object: object.value, now: now)
                }
            }
        }
        return item
    }

    /// A page's aggregate rating as written (5 when it names no best rating); the item
    /// contract leaves out a scale or a value outside its rules.
    static func rating(_ rating: SchemaSummary.Rating?) -> (value: Double?, scale: Double, count: Int?) {
        (rating?.value, rating?.best ?? 5, rating?.count)
    }

    /// The canonical URL when it stays on the site, else the page URL; without fragment.
    public static func identifier(for markup: PageMarkup, url: WebURL) -> WebURL {
        let page = url.withoutFragment
        guard let canonical = markup.canonicalURL?.withoutFragment else { return page }
        return sameSite(canonical.host, page.host) ? canonical : page
    }

    static func sameSite(_ a: String, _ b: String) -> Bool {
        func bare(_ host: String) -> Substring { host.hasPrefix("www.") ? host.dropFirst(4) : host[...] }
        return bare(a) == bare(b)
    }

    /// The main text without its first line when that is the page's headline: a result
    /// shows its title already.
    static func withoutHeadline(_ text: String, _ headline: String?) -> String {
        guard let headline, !headline.isEmpty, let newline = text.firstIndex(of: "\n"), text[..<newline] == headline[...] else { return text }
        return String(text[text.index(after: newline)...])
    }

    /// Text in Unicode normalisation form C (`e` + U+0301 becomes `é`), as the index and
    /// snippets expect one spelling of each character. Most text already is (measured: the
    /// normalisation of every page's 32 KB of main text was a fifth of a crawl's CPU), so
    /// it runs only when the quick check cannot tell.
    static func normalized(_ text: String) -> String {
        guard !NormalizationCheck.isSurelyNFC(text) else { return text }
        return text.precomposedStringWithCanonicalMapping
    }


    // MARK: apps

    static func apps(for markup: PageMarkup, universalLinkAppIDs: [String], androidPackages: [String]) -> [AppTarget] {
        var apps = merge(declarations(in: markup))
        let bundles = universalLinkAppIDs.map(bundleID(fromAppID:))
        if !bundles.isEmpty {
            let iosIndexes = apps.indices.filter { apps[$0].platform == .ios }
            if iosIndexes.isEmpty {
                apps.insert(contentsOf: bundles.map {
                    AppTarget(platform: .ios, bundleID: $0, isUniversalLink: true, evidence: .universalLink)
                }, at: 0)
            } else {
                for (n, index) in iosIndexes.enumerated() {
                    apps[index].isUniversalLink = true
                    apps[index].evidence = .universalLink
                    if apps[index].bundleID == nil, bundles.count == iosIndexes.count || bundles.count == 1 {
                        apps[index].bundleID = bundles[min(n, bundles.count - 1)]
                    }
                }
            }
        }
        for index in apps.indices where apps[index].platform == .android {
            if let package = apps[index].package, androidPackages.contains(package) { apps[index].isUniversalLink = true }
        }
        return apps
    }

    /// Every app declaration of the page, one per markup family and target, in the page's
    /// order, deep links that may not be followed dropped: what ``merge(_:)`` makes apps of,
    /// and where `validate` finds the family each field came from.
    public static func declarations(in markup: PageMarkup) -> [AppTarget] {
        var entries: [AppTarget] = []
        if let banner = markup.smartAppBanner, banner.appStoreID != nil || banner.appArgument != nil {
            entries.append(AppTarget(platform: .ios, appStoreID: banner.appStoreID, deepLink: banner.appArgument, evidence: .smartAppBanner))
        }
        if let appLinks = markup.appLinks {
            for target in appLinks.iPhoneTargets + appLinks.targets.filter({ $0.platform == .ipad }) {
                entries.append(AppTarget(platform: .ios, appStoreID: target.appStoreID, name: target.appName, deepLink: target.url,
                                         evidence: .appLinks))
            }
            for target in appLinks.androidTargets {
                entries.append(AppTarget(platform: .android, package: target.package, name: target.appName, deepLink: target.url,
                                         evidence: .appLinks))
            }
        }
        for app in markup.twitterCard?.apps ?? [] {
            let platform: AppTarget.Platform = app.platform == .googleplay ? .android : .ios
            entries.append(AppTarget(platform: platform, appStoreID: platform == .ios ? app.id : nil,
                                     package: platform == .android ? app.id : nil, name: app.name, deepLink: app.url,
                                     evidence: .twitterCard))
        }
        for alternate in markup.appAlternates {
            let ios = alternate.platform == .ios
            entries.append(AppTarget(platform: ios ? .ios : .android, appStoreID: ios ? alternate.appID : nil,
                                     package: ios ? nil : alternate.appID, deepLink: alternate.deepLink, evidence: .alternate))
        }
        for link in markup.schema.deepLinks {
            let ios = link.platform == .ios
            entries.append(AppTarget(platform: ios ? .ios : .android, appStoreID: ios ? link.appID : nil,
                                     package: ios ? nil : link.appID, deepLink: link.url, evidence: .schemaAction))
        }
        for index in entries.indices where entries[index].deepLink.map(AppTarget.isAcceptableDeepLink) == false {
            entries[index].deepLink = nil
        }
        return entries
    }

    /// The family that gave `app` its id and the one that gave its deep link, from the
    /// page's declarations in merge order (the first to give a value is the one kept).
    public static func sources(of app: AppTarget, in declarations: [AppTarget]) -> (id: AppTarget.Evidence?, deepLink: AppTarget.Evidence?) {
        let ordered = declarations.enumerated().sorted { ($0.element.evidence, $0.offset) < ($1.element.evidence, $1.offset) }.map(\.element)
            .filter { $0.platform == app.platform }
        let id = app.identity.flatMap { identity in ordered.first { $0.identity == identity }?.evidence }
        let link = app.deepLink.flatMap { link in ordered.first { $0.deepLink == link }?.evidence }
        return (id, link)
    }

    /// `ABCDE12345.com.example.app` → `com.example.app`.
    static func bundleID(fromAppID appID: String) -> String {
        guard let dot = appID.firstIndex(of: "."), appID[..<dot].count == 10 else { return appID }
        return String(appID[appID.index(after: dot)...])
    }

    /// Merges entries already ordered from most to least authoritative.
    static func merge(_ entries: [AppTarget]) -> [AppTarget] {
        var apps: [AppTarget] = []
        for entry in entries.enumerated().sorted(by: { ($0.element.evidence, $0.offset) < ($1.element.evidence, $1.offset) }).map(\.element) {
            let index: Int?
            if let identity = entry.identity {
                index = apps.firstIndex { $0.platform == entry.platform && $0.identity == identity }
                    ?? apps.firstIndex { $0.platform == entry.platform && $0.identity == nil }
            } else {
                index = apps.firstIndex { $0.platform == entry.platform }
            }
            guard let index else {
                apps.append(entry)
                continue
            }
            apps[index].appStoreID = apps[index].appStoreID ?? entry.appStoreID
            apps[index].package = apps[index].package ?? entry.package
            apps[index].name = apps[index].name ?? entry.name
            apps[index].deepLink = apps[index].deepLink ?? entry.deepLink
        }
        return apps
    }
}
