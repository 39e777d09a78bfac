import Fetch
import Foundation
import HTTPTypes
import Items
import JSON
import Markup
import PageItems
import Render
import StoreSeams
import TextUtilities
import WebRules
import WebURL

/// Answers for one URL what a crawl would decide, with the evidence — the site owner's
/// view behind `searchlight validate`. It runs the crawl's own parts, not copies of them:
/// ``HostFiles`` for robots.txt and the association files, ``LinkAdmission`` for redirects
/// and canonicals, ``PageAnalyzer`` for the page, ``ItemBuilder`` for the item and
/// ``TapAction`` for the taps.
public struct PageValidator {
    public struct Options: Sendable {
        public var platform = AppTarget.Platform.ios
        /// Apps taken as installed for "with the app"; empty means the item's own apps.
        public var installed: Set<String> = []
        public var productToken = "searchlightbot"
        /// The first URL a store holds with a body of this digest (a crawl's frontier): says
        /// whether the page is a duplicate of one already indexed; nil checks nothing.
        public var firstURLWithContent: (@Sendable (_ digest: String) throws -> String?)?
        /// Renders the page as the crawl would (``RenderRule`` under ``render``); nil renders none.
        public var renderer: Renderer?
        public var render = RenderMode.auto

        public init() {}
    }

    private let downloader: Downloader
    private let options: Options
    private let now: Date

    public init(downloader: Downloader, options: Options, now: Date = Date()) {
        self.downloader = downloader
        self.options = options
        self.now = now
    }

    public func validate(_ url: WebURL) throws -> ValidationReport {
        var report = ValidationReport(url: url.string, platform: options.platform)
        let admission = LinkAdmission(keys: FrontierKey(), scope: try CrawlScope(seeds: [url]))
        var robotsByOrigin: [String: (RobotsRules, ValidationReport.RobotsCheck)] = [:]
        func robots(for target: WebURL) -> (RobotsRules, ValidationReport.RobotsCheck) {
            var (rules, check) = robotsByOrigin[target.origin] ?? self.robots(origin: target.origin)
            robotsByOrigin[target.origin] = (rules, check)
            let verdict = rules.verdict(pathAndQuery: target.pathAndQuery)
            check.allowed = verdict.allowed
            check.rule = verdict.rule.map { "\($0.allow ? "Allow" : "Disallow"): \($0.pattern)" }
            check.line = verdict.rule?.line
            return (rules, check)
        }

        // The chain of requests, hop by hop, each checked as the crawler checks it.
        var current = admission.keys.key(for: url)
        var final: (response: FetchResponse, robots: RobotsRules)?
        while final == nil {
            let (rules, check) = robots(for: current)
            let response: FetchResponse
            if check.allowed {
                response = fetch(FetchRequest(url: current.string))
            } else {
                response = FetchResponse(request: FetchRequest(url: current.string), status: 0)
            }
            report.hops.append(ValidationReport.Hop(url: current.string, status: response.status, location: response.redirectURL,
                                                    error: response.error?.message, robots: check))
            guard check.allowed else {
                let reason = rules.access == .disallowAll ? SkipReason.robotsUnreachable : SkipReason.robots
                report.reasons.append(.init(code: reason.label, message: check.rule.map { "robots.txt forbids \(current.pathAndQuery): '\($0)' (line \(check.line ?? 0), group '\(check.group ?? "")')" }
                    ?? "robots.txt could not be read (\(check.note ?? "status \(check.status)")): nothing on the host is fetched"))
                return report
            }
            guard response.isRedirect, let location = response.redirectURL.flatMap(WebURL.init) else {
                final = (response, rules)
                break
            }
            switch admission.admit(location, from: .redirect) {
            case .follow(let target) where admission.followsRedirect(afterHops: report.hops.count - 1):
                current = target
            case .follow:
                report.reasons.append(.init(code: SkipReason.tooManyRedirects.label, message: "more than \(LinkAdmission.maximumRedirects) redirects"))
                return report
            case .drop(let reason):
                report.reasons.append(.init(code: reason.label, message: "the redirect to \(location.string) is not followed (\(reason.label))"))
                return report
            }
        }
        guard let (response, pageRobots) = final else { return report }
        report.finalURL = current.string

        // A tap sees the URL as written, fragment and all (`#nondeeplinking` may be excluded),
        // when no redirect moved it.
        let tapped = current == admission.keys.key(for: url) ? url : current
        let associations = associationFiles(for: current, matching: tapped, into: &report)
        sitemapCheck(for: current, robots: pageRobots, into: &report)
        let entry = FrontierEntry(id: 0, url: current, origin: current.origin, depth: 0)
        var analyzer = PageAnalyzer(builder: ItemBuilder(), admission: admission)
        analyzer.renderer = options.renderer
        analyzer.render = RenderPolicy(mode: options.render)
        let result = analyzer.analyze(response, entry: entry, associations: associations, robots: pageRobots, now: now, keepMarkup: true)
        report.fetch = ValidationReport.FetchSummary(
            status: response.status, contentType: response.contentType, charset: result.markup?.charset.encoding,
            charsetSource: result.markup?.charset.source.rawValue, bytes: response.body.count, seconds: response.totalTime)
        if let outcome = result.render {
            var notes = outcome.failure.map { ["the page could not be rendered (\($0.rawValue)): what follows is read from its HTML as sent"] } ?? []
            if let before = result.staticMarkup, let after = result.markup { notes += RenderDifference.notes(static: before, rendered: after) }
            report.render = ValidationReport.RenderCheck(outcome: outcome, notes: notes)
        }
        if let markup = result.markup {
            report.markup = markup
            report.appDeclarations = ItemBuilder.declarations(in: markup)
            report.findings = MarkupReview.findings(markup)
            report.noindexSources = markup.robots.noindexSources
            if let canonical = markup.canonicalURL.map(admission.keys.key(for:)), canonical != current {
                report.canonical = self.canonical(canonical, of: current, admission: admission, robots: pageRobots)
            }
        }
        switch result.kind {
        case .indexed(let valid):
            let item = valid.item
            if let digest = result.digest?.description, let first = try firstURL(withContent: digest), first != current.string {
                report.duplicateOf = first
                report.reasons.append(.init(code: SkipReason.duplicate.label, message: "the same body was indexed at \(first)"))
            } else {
                report.indexable = true
            }
            report.item = item
            for platform in AppTarget.Platform.allCases {
                let own = Set(item.apps.filter { $0.platform == platform }.flatMap { [$0.appStoreID, $0.bundleID, $0.package].compactMap(\.self) })
                report.actions[platform] = ValidationReport.Actions(
                    withApp: TapAction.resolve(for: item, platform: platform, installed: options.installed.isEmpty ? own : options.installed),
                    withoutApp: TapAction.resolve(for: item, platform: platform, installed: []))
            }
            if report.indexable, !report.hasWorkingAppAction {
                report.reasons.append(.init(code: "no-app-action", message: "on \(options.platform.rawValue) a tap does not open an app, even with it installed"))
            }
        case .notIndexed(let reason):
            report.reasons.append(.init(code: reason.label, message: result.detail.map { "\(reason.label): \($0)" } ?? message(for: reason, report: report)))
        case .gone:
            report.reasons.append(.init(code: SkipReason.http(response.status).label, message: "the page answers \(response.status)"))
        case .failed(let reason, _), .refused(let reason):
            report.reasons.append(.init(code: reason.label, message: response.error?.message ?? "the page answers \(response.status)"))
        case .throttled(let retryAfter):
            report.reasons.append(.init(code: SkipReason.throttled.label, message: "the site answers 429: come back in \(Int(retryAfter)) s"))
        case .notModified, .redirect:
            report.reasons.append(.init(code: SkipReason.http(response.status).label, message: "unexpected status \(response.status)"))
        }
        return report
    }

    private func message(for reason: SkipReason, report: ValidationReport) -> String {
        switch reason {
        case .noindex: "indexing is forbidden by " + (report.noindexSources.first ?? "a robots directive")
        case .canonical: "the page names \(report.canonical?.url ?? "another URL") as canonical; that URL is indexed instead"
        case .notHTML: "not HTML (Content-Type \(report.fetch?.contentType ?? "none"))"
        default: reason.label
        }
    }

    private func canonical(_ canonical: WebURL, of url: WebURL, admission: LinkAdmission, robots: RobotsRules) -> ValidationReport.Canonical {
        if case .drop(let reason) = admission.admit(canonical, from: .canonical) {
            return .init(url: canonical.string, crawlable: false, note: "not crawled (\(reason.label)): this page stands for it")
        }
        if canonical.origin == url.origin, !robots.allows(canonical) {
            return .init(url: canonical.string, crawlable: false, note: "disallowed by robots.txt: this page stands for it")
        }
        return .init(url: canonical.string, crawlable: PageAnalyzer.canCrawl(canonical: canonical, of: url, admission: admission, robots: robots),
                     note: "crawled and indexed on its own")
    }

    private func firstURL(withContent digest: String) throws -> String? {
        try options.firstURLWithContent?(digest)
    }

    // MARK: host files

    /// robots.txt as the crawler reads it: up to five redirects, a 4xx allows all, a 5xx
    /// or no answer disallows all.
    private func robots(origin: String) -> (RobotsRules, ValidationReport.RobotsCheck) {
        var url = origin + "/robots.txt"
        for hops in 0...5 {
            let response = fetch(FetchRequest(url: url))
            let verdict = HostFiles.robots(response, hops: hops, origin: origin, record: nil, now: now, token: options.productToken)
            var check = ValidationReport.RobotsCheck(robotsURL: url, status: response.status, access: "", allowed: false)
            switch verdict {
            case .redirect(let target):
                url = target
                continue
            case .refused:
                check.access = RobotsRules.Access.disallowAll.rawValue
                check.note = "the host resolves to a private or loopback address: give --allow-private to check a site on this network"
                return (.unreachable, check)
            case .unavailable:
                check.access = RobotsRules.Access.disallowAll.rawValue
                check.note = response.error.map { "unreachable: \($0.message)" }
                    ?? "status \(response.status): RFC 9309 treats an unreachable robots.txt as disallowing everything"
                return (.unreachable, check)
            case .rules(let rules, _, _):
                check.access = rules.access.rawValue
                check.group = rules.group
                check.crawlDelay = rules.crawlDelay
                if rules.access == .allowAll { check.note = "status \(response.status): no robots.txt, everything is allowed" }
                return (rules, check)
            }
        }
        return (.unreachable, .init(robotsURL: url, status: 0, access: RobotsRules.Access.disallowAll.rawValue, allowed: false,
                                    note: "more than five redirects"))
    }

    /// Apple's file from `/.well-known/` then the root, Android's from `/.well-known/`,
    /// each checked as the platforms check them: https, no redirects, JSON, 128 KB.
    private func associationFiles(for url: WebURL, matching tapped: WebURL, into report: inout ValidationReport) -> ItemBuilder.Associations {
        guard url.isHTTPS else {
            report.associationNotes.append("\(url.string) is not https: universal links and verified App Links need https")
            return ItemBuilder.Associations()
        }
        var associations = ItemBuilder.Associations()
        var files: [ValidationReport.AssociationFile] = []
        for kind in [HostFiles.AssociationFile.appleWellKnown, .appleRoot] {
            let (response, file) = associationFile(kind.url(url.origin))
            files.append(file)
            if case .apple(let parsed, _) = HostFiles.association(kind, response) {
                associations.apple = parsed
                break
            }
        }
        let apple = associations.apple
        let match = apple?.match(for: tapped)
        report.apple = .init(files: files, valid: apple != nil, appIDs: apple?.appIDs ?? [], match: match,
                             claimed: match.map { !$0.excludes } ?? false)
        let (response, file) = associationFile(HostFiles.AssociationFile.android.url(url.origin))
        if case .android(let links, _) = HostFiles.association(.android, response) { associations.android = links }
        report.android = .init(file: file, valid: associations.android != nil, statements: associations.android?.statements ?? [])
        return associations
    }

    private func associationFile(_ url: String) -> (FetchResponse, ValidationReport.AssociationFile) {
        var request = FetchRequest(url: url)
        request.maximumBodyBytes = HostFiles.AssociationFile.maximumBytes
        let response = fetch(request)
        var problems: [String] = []
        var notes: [String] = []
        if let error = response.error {
            problems.append(error.kind == .tooLarge ? "larger than \(HostFiles.AssociationFile.maximumBytes / 1024) KB" : error.message)
        } else if response.isRedirect {
            problems.append("redirects to \(response.redirectURL ?? "?"); the file must be served without redirects")
        } else if response.status != 200 {
            problems.append("status \(response.status)")
        } else {
            // `first`: a value of only `;` splits into nothing (indexing it trapped).
            let type = response.contentType?.split(separator: ";").first?.trimmingASCIIWhitespace().lowercased()
            // Apple documents application/json, yet devices, Apple's CDN and the crawler read
            // the file whatever its type (github.com serves application/octet-stream): a note
            // that matches what the crawler does with it, not a failure.
            if type != "application/json" {
                notes.append("Content-Type is \(response.contentType ?? "missing"), not the documented application/json (the file is read anyway)")
            }
            do {
                _ = try JSONParser.parse(bytes: response.body)
            } catch {
                problems.append("not valid JSON: \(error.description)")
            }
        }
        return (response, .init(url: url, status: response.status, contentType: response.contentType, bytes: response.body.count, problems: problems, notes: notes))
    }

    func fetch(_ request: FetchRequest) -> FetchResponse {
        FetchResponse.awaiting { downloader.start(request, completion: $0) }
    }
}
