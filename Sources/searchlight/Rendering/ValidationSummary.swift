import Crawl
import Items
import Markup

/// The readable form of a ``ValidationReport``: the verdict and its reasons first, then
/// each check with its evidence.
struct ValidationSummary {
    let report: ValidationReport

    var text: String {
        var lines: [String] = []
        func section(_ title: String) {
            lines.append("")
            lines.append(title)
        }
        func field(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            lines.append("  \(name.padding(18))\(value)")
        }

        let verdict = report.passed ? "PASS" : "FAIL"
        lines.append("\(verdict)  \(report.url)")
        if report.indexable {
            let failing = report.areas.filter { $0.level == .actionRequired }
            if failing.isEmpty {
                lines.append("  indexed" + (report.hasWorkingAppAction ? ", and a tap opens the app on \(report.platform.rawValue)" : ""))
            } else {
                // What failed, under the verdict: never a line that reads as a pass.
                lines.append("  indexed, but:")
                for verdict in failing {
                    lines.append("  ✗ \(verdict.area.rawValue): " + (verdict.notes.first ?? "needs action"))
                }
            }
        }
        // Why a page is not indexed; an indexed page's failures are its areas', said above.
        if !report.indexable {
            for reason in report.reasons { lines.append("  ✗ \(reason.message) [\(reason.code)]") }
        }
        // Each area's verdict first, what needs action before what is only recommended.
        lines.append("")
        for verdict in report.areas {
            let mark = switch verdict.level {
            case .actionRequired: "✗ Action required"
            case .recommended: "! Recommended    "
            case .fine: "✓ Fine           "
            case .notUsed: "- Not used       "
            }
            lines.append("  \(mark)  \(verdict.area.rawValue)" + (verdict.notes.first.map { ": \($0)" } ?? ""))
            for note in verdict.notes.dropFirst() { lines.append("                       \(note)") }
        }

        section("robots.txt")
        for hop in report.hops {
            let robots = hop.robots
            let decision = robots.allowed ? "allowed" : "disallowed"
            let rule = robots.rule.map { " by '\($0)' (line \(robots.line ?? 0))" } ?? (robots.note.map { " (\($0))" } ?? " (no rule matched)")
            let group = robots.group.map { ", group '\($0)'" } ?? ""
            field(hop.url, "\(decision)\(rule)\(group)")
        }

        section("Fetch")
        for hop in report.hops {
            let unfetched = hop.robots.allowed ? "not fetched"
                : hop.robots.rule != nil ? "not fetched: robots.txt disallows it" : "not fetched: robots.txt could not be read"
            let outcome = hop.error ?? (hop.location.map { "\(hop.status) → \($0)" } ?? (hop.status == 0 ? unfetched : "\(hop.status)"))
            field("GET", "\(hop.url)  \(outcome)")
        }
        if let fetch = report.fetch {
            field("Content-Type", fetch.contentType ?? "(none)")
            field("Charset", fetch.charset.map { "\($0) (\(Self.charsetSource(fetch.charsetSource)))" })
            field("Size", "\(fetch.bytes) bytes in \(Int((fetch.seconds * 1000).rounded())) ms")
        }

        if !report.noindexSources.isEmpty || report.canonical != nil || report.duplicateOf != nil {
            section("Indexing")
            for source in report.noindexSources { field("noindex", source) }
            if let canonical = report.canonical { field("Canonical", "\(canonical.url): \(canonical.note)") }
            field("Duplicate of", report.duplicateOf)
        }

        if let markup = report.markup, !markup.mainText.verdicts.isEmpty {
            // The site owner's view of what the index reads as the page's text.
            section("Main text")
            let verdicts = markup.mainText.verdicts
            let kept = verdicts.filter { $0 == .content }.count
            field("Searchable", "\(markup.bodyText.utf8.count) bytes from \(kept) of \(verdicts.count) blocks of text")
            var dropped: [MainText.Verdict: Int] = [:]
            for verdict in verdicts where verdict != .content { dropped[verdict, default: 0] += 1 }
            if !dropped.isEmpty {
                field("Left out", dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))
            }
            if !markup.bodyText.isEmpty {
                field("Begins", String(markup.bodyText.prefix(160)).replacingOccurrences(of: "\n", with: " ¶ ") + (markup.bodyText.count > 160 ? "…" : ""))
            }
            lines.append("  (searchlight extract URL --explain shows every block and why)")
        }

        if let render = report.render {
            section("Rendering")
            field("Browser", render.outcome.failure == nil
                ? "rendered in \(String(format: "%.2f", render.outcome.seconds)) s, \(render.outcome.fetched) requests made" : "not rendered")
            if !render.outcome.refused.isEmpty {
                field("Not fetched", render.outcome.refused.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", "))
            }
            for note in render.notes { lines.append("  • \(note)") }
            if render.outcome.failure == nil, render.notes.isEmpty { lines.append("  • scripts add nothing Searchlight reads") }
        }

        if !report.findings.isEmpty {
            section("Markup")
            for finding in report.findings {
                let place = finding.line.map { " (line \($0)" + (finding.column.map { ", column \($0)" } ?? "") + ")" } ?? ""
                lines.append("  \(finding.level.rawValue.padding(8))\(finding.family): \(finding.message)\(place)")
            }
        }

        section("App association")
        if report.associationNotes.isEmpty, report.apple == nil, report.android == nil {
            lines.append("  not checked: the page was not fetched")
        }
        for note in report.associationNotes { lines.append("  \(note)") }
        if let apple = report.apple {
            for file in apple.files {
                field("Apple", "\(file.url)  \(file.status)" + (file.problems.isEmpty ? "" : "  ✗ " + file.problems.joined(separator: "; "))
                    + (file.notes.isEmpty ? "" : "  ! " + file.notes.joined(separator: "; ")))
            }
            if let match = apple.match {
                field("Component", "\(match.written) (details[\(match.detail)], component \(match.component))")
                field("Universal link", match.excludes ? "excluded" : match.appIDs.joined(separator: ", "))
            } else if apple.valid {
                field("Universal link", "no component matches this URL (apps: \(apple.appIDs.joined(separator: ", ")))")
            }
        }
        if let android = report.android {
            let file = android.file
            field("Android", "\(file.url)  \(file.status)" + (file.problems.isEmpty ? "" : "  ✗ " + file.problems.joined(separator: "; "))
                + (file.notes.isEmpty ? "" : "  ! " + file.notes.joined(separator: "; ")))
            for statement in android.statements {
                let relation = statement.handlesAllURLs ? "handle_all_urls" : "no handle_all_urls"
                field("  " + statement.package, "\(relation); \(statement.fingerprints.count) fingerprint(s)")
            }
        }

        if !report.sitemaps.isEmpty {
            section("Sitemaps")
            for file in report.sitemaps {
                let what = file.kind.map { "\($0), \(file.entries) entries" + (file.listsPage ? ", lists this page" : "") } ?? (file.error ?? "")
                field(file.named ? "robots.txt names" : "found at", "\(file.url)  \(file.status)  \(what)")
            }
            field("This page", report.listedInSitemap ? "listed" : "not listed")
            for note in report.sitemapNotes { lines.append("  ! \(note)") }
        }

        if let item = report.item {
            section("Item")
            field("Id", item.uniqueIdentifier)
            field("Title", item.title)
            field("Description", item.contentDescription)
            field("Thumbnail", item.thumbnailURL)
            for app in item.apps {
                // Each value tagged with the markup it came from; one tag when one family gave both.
                let id = app.appStoreID ?? app.bundleID ?? app.package ?? "?"
                let sources = report.sources(of: app)
                let idTag = sources.id.map { " [\($0.rawValue)]" } ?? (app.bundleID != nil ? " [apple-app-site-association]" : "")
                var text = id
                if let link = app.deepLink {
                    let linkTag = sources.deepLink.map { " [\($0.rawValue)]" } ?? ""
                    text += (linkTag == idTag ? "" : idTag) + " → \(link)" + linkTag
                } else {
                    text += idTag
                }
                if app.isUniversalLink {
                    text += app.platform == .ios ? " (universal link: the association file claims this URL)" : " (verified App Link)"
                }
                field("App (\(app.platform.rawValue))", text)
            }
            section("Tap")
            for platform in AppTarget.Platform.allCases {
                guard let actions = report.actions[platform] else { continue }
                func describe(_ action: TapAction?) -> String { action.map { "\($0.kind.rawValue) \($0.url ?? "")" } ?? "nothing" }
                field("\(platform.rawValue), with app", describe(actions.withApp))
                field("\(platform.rawValue), without", describe(actions.withoutApp))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where the charset was read, in words.
    static func charsetSource(_ source: String?) -> String {
        switch source.flatMap(CharsetDecision.Source.init(rawValue:)) {
        case .bom: "from the byte order mark"
        case .header: "from the Content-Type header"
        case .meta: "from the page's <meta> charset"
        case .sniffed: "not declared; the bytes read as UTF-8"
        case .default: "not declared; windows-1252, the web's default"
        case nil: "source unknown"
        }
    }
}
