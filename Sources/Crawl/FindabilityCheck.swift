import Foundation
import Items
import SearchModel
import StoreSeams
import TextUtilities

/// What the page as served now says about its place for a query, beside what the index
/// holds (``Findability``): why a page is not in the index (the crawler's verdict on it
/// now, the frontier's), and for each query word the index lacks, whether the live page
/// holds it — in its text (it changed since the crawl, or only a rendered page shows it) or
/// only outside its main text. A pure function of the three.
public enum FindabilityCheck {
    public static func notes(report: ValidationReport, findability: Findability, frontier: FrontierRow?) -> [String] {
        var notes: [String] = []
        if findability.findings.contains(.notIndexed) {
            notes.append(notIndexed(report: report, frontier: frontier))
        }
        guard let item = report.item else { return notes }
        let missing = findability.findings.compactMap { finding -> [String]? in
            if case .missingWords(let words) = finding { return words }
            return nil
        }.joined()
        let absent = findability.findings.contains(.notIndexed) || findability.findings.contains(.noWordMatches)
        let words = absent ? findability.words.filter { $0.forms.contains { $0.kind == .written } } : findability.words.filter { missing.contains($0.word) }
        let itemWords = Self.words(of: [item.title, item.keywords.joined(separator: " "), item.contentDescription ?? "", item.bodyText])
        let pageWords = Self.words(of: [item.title] + (report.markup?.mainText.explained().map(\.text) ?? []))
        let rendered = report.render.map { $0.outcome.failure == nil } ?? false
        for word in words {
            let forms = word.forms.filter { $0.kind == .written || $0.kind == .stem }.map(\.text)
            if Self.holds(itemWords, forms) {
                guard !absent else { continue }
                notes.append("the page as served now holds '\(word.word)', the indexed copy does not: it changed since it was crawled "
                    + "(`crawl --refetch URL` reads it again)"
                    + (rendered ? "; it was rendered to read it, so the crawl needs --render auto or always to see it" : ""))
            } else if Self.holds(pageWords, forms) {
                notes.append("'\(word.word)' is on the page but outside its main text (navigation, boilerplate…), which is not searched: "
                    + "`searchlight extract URL --explain` shows which block and why")
            } else if !absent {
                notes.append("'\(word.word)' is not on the page as served now either")
            }
        }
        return notes
    }

    /// Why a page the index does not hold is not there, as the crawler sees it now and as
    /// the frontier remembers it.
    static func notIndexed(report: ValidationReport, frontier: FrontierRow?) -> String {
        if !report.indexable {
            let reasons = report.reasons.map(\.message).joined(separator: "; ")
            return "not in the index, and the crawler would not index it now: " + (reasons.isEmpty ? "see the verdicts above" : reasons)
        }
        guard let frontier else {
            return "not in the index: no crawl of this folder has found the URL — add it to the seeds or a sitemap, or `crawl URL`"
        }
        if frontier.state == "new" || frontier.lastAttempt == nil {
            return "not in the index yet: the frontier knows the URL and a crawl will fetch it (due \(ISO8601.string(fromSeconds: frontier.due.timeIntervalSince1970)))"
        }
        let verdict = frontier.reason.map { " with the verdict \($0)" + (frontier.detail.map { " (\($0))" } ?? "") } ?? ""
        return "not in the index: the last crawl fetched it \(frontier.lastAttempt.map { ISO8601.string(fromSeconds: $0.timeIntervalSince1970) } ?? "")\(verdict); "
            + "it is due again \(ISO8601.string(fromSeconds: frontier.due.timeIntervalSince1970)), and would be indexed as it is served now"
    }

    /// The distinct words of the texts, lower-cased and without diacritics.
    static func words(of texts: [String]) -> Set<String> {
        var words = Set<String>()
        for text in texts {
            let folded = text.prefix(256 * 1024).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            for word in folded.split(whereSeparator: { !$0.isLetter && !$0.isNumber }) { words.insert(String(word)) }
        }
        return words
    }

    /// Whether the words hold one of the forms: a word itself, or with `…`, a word it begins.
    static func holds(_ words: Set<String>, _ forms: [String]) -> Bool {
        forms.contains { form in
            let folded = form.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            if folded.hasSuffix("…") {
                let stem = folded.dropLast()
                return words.contains { $0.hasPrefix(stem) }
            }
            return words.contains(folded)
        }
    }
}
