import Items
import Markup

/// `validate`'s verdict per area, in the terms of Apple's retired validator: what needs
/// action, what is recommended, what is fine, what the page does not use. A pure function
/// of the report, so the exit status and the headings cannot disagree with the evidence.
public struct AreaVerdict: Sendable, Hashable {
    public enum Area: String, Sendable, CaseIterable {
        case indexing
        case appAction = "app-action"
        case universalLinks = "universal-links"
        case androidAppLinks = "android-app-links"
        case appMarkup = "app-markup"
        case structuredData = "structured-data"
    }

    public enum Level: String, Sendable, Comparable {
        case actionRequired = "action-required"
        case recommended
        case fine
        case notUsed = "not-used"

        public static func < (a: Level, b: Level) -> Bool { a.rank < b.rank }
        private var rank: Int {
            switch self {
            case .actionRequired: 0
            case .recommended: 1
            case .fine: 2
            case .notUsed: 3
            }
        }
    }

    public var area: Area
    public var level: Level
    /// Why, in a sentence or two; empty when fine.
    public var notes: [String]

    static let appFamilies: Set<String> = ["smart-app-banner", "app-links", "twitter-card", "alternates", "app-markup"]
    static let structuredFamilies: Set<String> = ["schema.org", "microdata", "open-graph"]

    /// Every area of `report`, worst first within the fixed order of ``Area``.
    static func verdicts(_ report: ValidationReport) -> [AreaVerdict] {
        var verdicts: [AreaVerdict] = []
        // Indexing: the page is in the index, or why not.
        verdicts.append(report.indexable
            ? AreaVerdict(area: .indexing, level: report.listedInSitemap || report.sitemaps.isEmpty ? .fine : .recommended,
                          notes: report.listedInSitemap || report.sitemaps.isEmpty ? [] : ["no sitemap of the host lists the page"])
            : AreaVerdict(area: .indexing, level: .actionRequired, notes: report.reasons.map(\.message)))
        // The tap: with the app installed, it must open the app on the platform asked about.
        if report.indexable {
            verdicts.append(report.hasWorkingAppAction
                ? AreaVerdict(area: .appAction, level: .fine, notes: [])
                : AreaVerdict(area: .appAction, level: .actionRequired,
                              notes: ["on \(report.platform.rawValue) a tap does not open an app, even with it installed"]))
        }
        verdicts.append(universalLinks(report))
        verdicts.append(androidAppLinks(report))
        verdicts.append(fromFindings(.appMarkup, report.findings.filter { appFamilies.contains($0.family) },
                                     used: report.item.map { !$0.apps.isEmpty } ?? false))
        verdicts.append(fromFindings(.structuredData, report.findings.filter { structuredFamilies.contains($0.family) },
                                     used: report.markup.map { !$0.schemaObjects.isEmpty || $0.openGraph != nil } ?? false))
        return verdicts
    }

    /// A file that answers but is broken needs action (a tap would not open the app, or
    /// Apple would stop reading it); no file is "not used" unless the page names an iOS app,
    /// when one is recommended.
    private static func universalLinks(_ report: ValidationReport) -> AreaVerdict {
        let iosApp = report.item?.apps.contains { $0.platform == .ios } ?? false
        guard let apple = report.apple else {
            return AreaVerdict(area: .universalLinks, level: .notUsed, notes: report.associationNotes)
        }
        let answered = apple.files.filter { $0.status != 404 && $0.status != 410 }
        let broken = answered.filter { !$0.problems.isEmpty }
        if !apple.valid {
            if !broken.isEmpty {
                return AreaVerdict(area: .universalLinks, level: .actionRequired,
                                   notes: broken.map { "\($0.url): \($0.problems.joined(separator: "; "))" })
            }
            return iosApp
                ? AreaVerdict(area: .universalLinks, level: .recommended,
                              notes: ["no apple-app-site-association file: the page's iOS app opens only through its custom URL scheme"])
                : AreaVerdict(area: .universalLinks, level: .notUsed, notes: [])
        }
        var notes = broken.map { "\($0.url): \($0.problems.joined(separator: "; "))" }
        let cautions = answered.flatMap { file in file.notes.map { "\(file.url): \($0)" } }
        if let match = apple.match, match.excludes {
            notes.append("the file excludes this URL (\(match.written)): it opens in the browser")
            return AreaVerdict(area: .universalLinks, level: notes.count > 1 || !cautions.isEmpty ? .recommended : .fine, notes: notes + cautions)
        }
        guard apple.claimed else {
            notes.append("no component of the file matches this URL (apps: \(apple.appIDs.joined(separator: ", ")))")
            return AreaVerdict(area: .universalLinks, level: .recommended, notes: notes + cautions)
        }
        return AreaVerdict(area: .universalLinks, level: !notes.isEmpty ? .actionRequired : cautions.isEmpty ? .fine : .recommended,
                           notes: notes + cautions)
    }

    /// assetlinks.json: a 404 on a site without an Android app is no finding.
    private static func androidAppLinks(_ report: ValidationReport) -> AreaVerdict {
        let androidApp = report.item?.apps.contains { $0.platform == .android } ?? false
        guard let android = report.android else { return AreaVerdict(area: .androidAppLinks, level: .notUsed, notes: []) }
        let file = android.file
        if file.status == 404 || file.status == 410 {
            return androidApp
                ? AreaVerdict(area: .androidAppLinks, level: .recommended,
                              notes: ["no assetlinks.json: Android asks which app should open the link instead of opening the page's app"])
                : AreaVerdict(area: .androidAppLinks, level: .notUsed, notes: [])
        }
        let cautions = file.notes.map { "\(file.url): \($0)" }
        if !file.problems.isEmpty || !android.valid {
            return AreaVerdict(area: .androidAppLinks, level: .actionRequired,
                               notes: ["\(file.url): " + (file.problems.isEmpty ? "no statement Android can use" : file.problems.joined(separator: "; "))] + cautions)
        }
        return AreaVerdict(area: .androidAppLinks, level: cautions.isEmpty ? .fine : .recommended, notes: cautions)
    }

    private static func fromFindings(_ area: Area, _ findings: [MarkupFinding], used: Bool) -> AreaVerdict {
        // A finding of the area's own name is not prefixed with it again.
        let note = { (finding: MarkupFinding) in finding.family == area.rawValue ? finding.message : "\(finding.family): \(finding.message)" }
        let errors = findings.filter { $0.level == .error }
        if !errors.isEmpty { return AreaVerdict(area: area, level: .actionRequired, notes: errors.map(note)) }
        let warnings = findings.filter { $0.level == .warning }
        if !warnings.isEmpty { return AreaVerdict(area: area, level: .recommended, notes: warnings.map(note)) }
        return AreaVerdict(area: area, level: used || !findings.isEmpty ? .fine : .notUsed, notes: [])
    }
}
