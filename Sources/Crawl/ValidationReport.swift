import Foundation
import Items
import JSON
import Markup
import PageItems
import Render
import WebRules

/// What `searchlight validate` found for one URL: the crawler's own verdicts (robots.txt,
/// each fetch, indexability, the association files, the item and its tap actions), each
/// with its evidence, so a site owner can see why a page is or is not in the index.
public struct ValidationReport: Sendable {
    /// Why the page would not be indexed, or would have no working app action. `code` is a
    /// run report's skip label where the crawler has one (`robots`, `noindex`, `http-404`…).
    public struct Reason: Sendable, Hashable {
        public var code: String
        public var message: String
    }

    /// robots.txt's verdict for one URL.
    public struct RobotsCheck: Sendable {
        public var robotsURL: String
        /// The HTTP status of robots.txt (0: unreachable).
        public var status: Int
        /// `rules`, `allow-all` (4xx) or `disallow-all` (5xx, unreachable).
        public var access: String
        public var allowed: Bool
        /// The user-agent whose groups applied: `searchlightbot`, `*`, or nil.
        public var group: String?
        /// The deciding rule as read (`Disallow: /private`) and its line.
        public var rule: String?
        public var line: Int?
        public var crawlDelay: Double?
        /// What the status means, when no rules were read.
        public var note: String?
    }

    /// One request of the chain that led to the page.
    public struct Hop: Sendable {
        public var url: String
        public var status: Int
        public var location: String?
        public var error: String?
        public var robots: RobotsCheck
    }

    public struct FetchSummary: Sendable {
        public var status: Int
        public var contentType: String?
        /// The charset the page was read with, and why (`bom`, `header`, `meta`, `sniffed`, `default`).
        public var charset: String?
        public var charsetSource: String?
        public var bytes: Int
        public var seconds: Double
    }

    public struct Canonical: Sendable {
        public var url: String
        /// Whether the crawler would fetch and index the canonical on its own.
        public var crawlable: Bool
        public var note: String
    }

    /// One association file as fetched.
    public struct AssociationFile: Sendable {
        public var url: String
        public var status: Int
        public var contentType: String?
        public var bytes: Int
        /// What keeps the platform (and the crawler) from using the file.
        public var problems: [String]
        /// What departs from the platform's documentation but does not stop the file being
        /// used (a Content-Type other than application/json).
        public var notes: [String] = []
    }

    public struct AppleAssociation: Sendable {
        public var files: [AssociationFile]
        public var valid: Bool
        public var appIDs: [String]
        /// The component that decided for this URL, if any matched.
        public var match: AppSiteAssociation.Match?
        /// The URL is a universal link for `match.appIDs`.
        public var claimed: Bool
    }

    public struct AndroidAssociation: Sendable {
        public var file: AssociationFile
        public var valid: Bool
        public var statements: [AssetLinks.Statement]
    }

    /// One sitemap file of the host as the crawler reads it.
    public struct SitemapFile: Sendable {
        public var url: String
        public var status: Int
        /// robots.txt names it (else it is a well-known path or an index's child).
        public var named: Bool
        /// `urlset`, `index`, `text` or `feed`; nil when it could not be read.
        public var kind: String?
        public var entries = 0
        /// Entries left out, by reason (`out-of-scope`, `invalid-url`, `no-location`…).
        public var skipped: [String: Int] = [:]
        /// Locations outside the sitemap's folder, read here but dropped by strict crawlers.
        public var outsideFolder = 0
        public var truncated = false
        public var listsPage = false
        public var error: String?

        public init(url: String, status: Int, named: Bool) {
            self.url = url
            self.status = status
            self.named = named
        }
    }

    /// The page rendered in a browser, as the crawl would render it: what came of it, and
    /// what the browser adds to the HTML (``RenderDifference``).
    public struct RenderCheck: Sendable {
        public var outcome: RenderOutcome
        public var notes: [String]
    }

    /// A tap on the result, with the app installed and without.
    public struct Actions: Sendable {
        public var withApp: TapAction?
        public var withoutApp: TapAction?
    }

    public var url: String
    public var finalURL: String?
    public var hops: [Hop] = []
    public var fetch: FetchSummary?
    public var reasons: [Reason] = []
    public var indexable = false
    public var noindexSources: [String] = []
    public var canonical: Canonical?
    public var duplicateOf: String?
    public var markup: PageMarkup?
    /// Set when the page was rendered (or its render tried); the markup is the rendered one.
    public var render: RenderCheck?
    public var findings: [MarkupFinding] = []
    public var apple: AppleAssociation?
    public var android: AndroidAssociation?
    /// Problems that are not about one file (an http URL has no universal links).
    public var associationNotes: [String] = []
    public var sitemaps: [SitemapFile] = []
    /// Whether a sitemap of the host lists the page.
    public var listedInSitemap = false
    /// Warnings about the sitemaps: locations outside a folder, cut files, failures.
    public var sitemapNotes: [String] = []
    public var item: SearchableItem?
    /// The page's app declarations, one per markup family and target (``ItemBuilder/declarations(in:)``).
    public var appDeclarations: [AppTarget] = []
    public var actions: [AppTarget.Platform: Actions] = [:]
    /// The platform asked about; its action with the app installed must open the app.
    public var platform: AppTarget.Platform

    /// The markup families that gave `app` its id and its deep link: nil for a value no
    /// family of the page gave (a bundle id from the association file).
    public func sources(of app: AppTarget) -> (id: AppTarget.Evidence?, deepLink: AppTarget.Evidence?) {
        ItemBuilder.sources(of: app, in: appDeclarations)
    }

    /// The robots verdict for the last URL requested.
    public var robots: RobotsCheck? { hops.last?.robots }

    /// Indexed, and on the platform asked about a tap opens the app when it is installed.
    public var hasWorkingAppAction: Bool { actions[platform]?.withApp?.kind == .openApp }

    /// The verdict per area, Apple's "action required / recommended" way.
    public var areas: [AreaVerdict] { AreaVerdict.verdicts(self) }

    /// Exit status 0 only when no area needs action: indexed, a tap opens the app, and no
    /// association file or markup family is broken.
    public var passed: Bool { indexable && hasWorkingAppAction && !areas.contains { $0.level == .actionRequired } }

    public init(url: String, platform: AppTarget.Platform) {
        self.url = url
        self.platform = platform
    }
}

extension ValidationReport {
    public var json: JSONValue {
        let fetchJSON = JSONValue.object(JSONObject([
            ("hops", .array(hops.map(\.json))), ("status", fetch?.status.json ?? .null),
            ("contentType", fetch?.contentType.json ?? .null), ("charset", fetch?.charset.json ?? .null),
            ("charsetSource", fetch?.charsetSource.json ?? .null), ("bytes", fetch?.bytes.json ?? .null),
            ("seconds", fetch.map { (($0.seconds * 1000).rounded() / 1000).json } ?? .null),
        ]))
        let canonicalJSON: JSONValue = canonical.map { ["url": .string($0.url), "crawlable": .bool($0.crawlable), "note": .string($0.note)] } ?? .null
        let indexing = JSONValue.object(JSONObject([
            ("noindex", noindexSources.json), ("canonical", canonicalJSON), ("duplicateOf", duplicateOf.json),
        ]))
        let markupJSON = JSONValue.object(JSONObject([
            ("findings", .array(findings.map(\.json))), ("page", markup?.json ?? .null), ("mainTextBlocks", markup?.mainText.explanationJSON ?? .null),
        ]))
        let association = JSONValue.object(JSONObject([
            ("apple", apple?.json ?? .null), ("android", android?.json ?? .null), ("notes", associationNotes.json),
        ]))
        var actionsJSON: [(String, JSONValue)] = []
        for platform in AppTarget.Platform.allCases {
            let value: JSONValue = actions[platform].map { actions in
                ["withApp": actions.withApp?.json ?? .null, "withoutApp": actions.withoutApp?.json ?? .null]
            } ?? .null
            actionsJSON.append((platform.rawValue, value))
        }
        let reasonsJSON = JSONValue.array(reasons.map { ["code": .string($0.code), "message": .string($0.message)] })
        return .object(JSONObject([
            ("url", .string(url)), ("finalURL", finalURL.json), ("status", fetch?.status.json ?? .null),
            ("indexable", .bool(indexable)), ("appAction", .bool(hasWorkingAppAction)), ("passed", .bool(passed)),
            ("areas", .array(areas.map { verdict in
                .object(JSONObject([("area", .string(verdict.area.rawValue)), ("level", .string(verdict.level.rawValue)),
                                    ("notes", verdict.notes.json)]))
            })),
            ("reasons", reasonsJSON), ("robots", robots?.json ?? .null), ("fetch", fetchJSON), ("indexing", indexing),
            ("markup", markupJSON), ("association", association),
            ("render", render.map { render in
                .object(JSONObject([
                    ("rendered", .bool(render.outcome.failure == nil)), ("failure", render.outcome.failure.map { .string($0.rawValue) } ?? .null),
                    ("seconds", JSONValue((render.outcome.seconds * 1000).rounded() / 1000)), ("fetched", JSONValue(render.outcome.fetched)),
                    ("refused", .object(JSONObject(render.outcome.refused.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, JSONValue($0.value)) }))),
                    ("notes", render.notes.json),
                ]))
            } ?? .null),
            ("sitemaps", .object(JSONObject([
                ("listed", .bool(listedInSitemap)), ("files", .array(sitemaps.map(\.json))), ("notes", sitemapNotes.json),
            ]))),
            ("item", item?.json ?? .null),
            ("appSources", .array((item?.apps ?? []).map { app in
                let sources = sources(of: app)
                return .object(JSONObject([
                    ("platform", .string(app.platform.rawValue)), ("id", (app.identity).json),
                    ("idFrom", sources.id.map { .string($0.rawValue) } ?? .null),
                    ("deepLinkFrom", sources.deepLink.map { .string($0.rawValue) } ?? .null),
                ]))
            })),
            ("actions", .object(JSONObject(actionsJSON))),
        ]))
    }
}

extension ValidationReport.RobotsCheck {
    var json: JSONValue {
        .object(JSONObject([
            ("allowed", .bool(allowed)), ("group", group.json), ("rule", rule.json),
            ("line", line.json), ("url", .string(robotsURL)), ("status", status.json),
            ("access", .string(access)), ("crawlDelay", crawlDelay.json),
            ("note", note.json),
        ]))
    }
}

extension ValidationReport.Hop {
    var json: JSONValue {
        .object(JSONObject([
            ("url", .string(url)), ("status", status.json), ("location", location.json),
            ("error", error.json), ("robots", robots.json),
        ]))
    }
}

extension ValidationReport.AssociationFile {
    var json: JSONValue {
        .object(JSONObject([
            ("url", .string(url)), ("status", status.json), ("contentType", contentType.json),
            ("bytes", bytes.json), ("problems", problems.json), ("notes", notes.json),
        ]))
    }
}

extension ValidationReport.AppleAssociation {
    var json: JSONValue {
        .object(JSONObject([
            ("files", .array(files.map(\.json))), ("valid", .bool(valid)), ("appIDs", appIDs.json),
            ("match", match.map { match in
                .object(JSONObject([
                    ("appIDs", match.appIDs.json), ("detail", match.detail.json),
                    ("component", match.component.json), ("written", .string(match.written)), ("excludes", .bool(match.excludes)),
                ]))
            } ?? .null),
            ("claimed", .bool(claimed)),
        ]))
    }
}

extension ValidationReport.AndroidAssociation {
    var json: JSONValue {
        .object(JSONObject([
            ("file", file.json), ("valid", .bool(valid)),
            ("statements", .array(statements.map { statement in
                .object(JSONObject([
                    ("package", .string(statement.package)), ("relations", statement.relations.json),
                    ("handlesAllURLs", .bool(statement.handlesAllURLs)),
                    ("fingerprints", statement.fingerprints.json),
                ]))
            })),
        ]))
    }
}

extension MarkupFinding {
    var json: JSONValue {
        .object(JSONObject([
            ("family", .string(family)), ("level", .string(level.rawValue)), ("message", .string(message)),
            ("line", line.json), ("column", column.json),
        ]))
    }
}

extension ValidationReport.SitemapFile {
    var json: JSONValue {
        .object(JSONObject([
            ("url", .string(url)), ("status", status.json), ("namedInRobots", .bool(named)), ("kind", kind.json),
            ("entries", entries.json), ("skipped", .object(JSONObject(skipped.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))),
            ("outsideFolder", outsideFolder.json), ("truncated", .bool(truncated)), ("listsPage", .bool(listsPage)),
            ("error", error.json),
        ]))
    }
}
