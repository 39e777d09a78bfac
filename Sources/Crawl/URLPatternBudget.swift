import WebRules
import WebURL

/// One host's URL templates and what their pages yielded, deciding which templates are
/// endless URL spaces (calendars, empty result pages, session-numbered copies) that the
/// crawl stops expanding.
///
/// A fetched page is *stale* when it is a duplicate or near-duplicate of a page the host
/// has indexed, or when it brings nothing new: fewer than ``newShingles`` of its digit-free
/// shingles, or fewer than ``newWords`` digit-free words, were absent from the template's
/// earlier pages (a calendar day differs from the last only in its dates and weekday, and
/// the first day of a new month in the month's name: new phrases, but one new word). A page
/// that names a thing of its own — a title, main heading or schema.org name, or a deep link,
/// not seen on the template's pages before, digits aside — is never stale: a catalogue's
/// products share a trade vocabulary but not their names. A template is judged from its ``sample``-th fetched
/// page to its ``judgedUntil``-th: when ``trapStale`` of its last ``sample`` pages were stale,
/// it keeps producing URLs without content — a trap — and its URLs not yet fetched are not
/// fetched (`trap-pattern`). The window is recent pages rather than all of them because a
/// calendar's first days each bring a new weekday before it settles into repetition. A
/// template that reaches ``judgedUntil`` pages without that is content and never capped
/// (product pages, articles: each brings words the others lack). An endless calendar with
/// day, week, month and year views costs a sample or two per view.
///
/// Bounds: at most ``maximumLearning`` templates per host are being judged at once, each
/// remembering at most ``maximumShingles`` shingles and as many words (≈ 128 KB), freed at
/// the verdict; templates beyond that are not judged (and so not capped).
struct URLPatternBudget {
    enum Verdict: String, Sendable {
        case learning
        /// Pages kept bringing nothing new: no more fetches of new URLs.
        case trap
        /// Pages brought new content: never capped.
        case content
    }

    struct Evidence: Sendable, Equatable {
        var fetched = 0
        /// Duplicates, near-duplicates and pages with nothing new.
        var stale = 0
        /// Of those, exact and near duplicates.
        var duplicates = 0
        var verdict = Verdict.learning
        /// The last ``sample`` pages, one bit each, set when stale.
        var recent: UInt16 = 0
    }

    static let sample = 10
    static let trapStale = 8
    static let judgedUntil = 50
    static let newShingles = 3
    static let newWords = 3
    static let maximumLearning = 256
    static let maximumShingles = 4096

    private(set) var templates: [URLTemplate: Evidence] = [:]
    private var shingles: [URLTemplate: Set<UInt64>] = [:]
    private var words: [URLTemplate: Set<UInt64>] = [:]
    private var names: [URLTemplate: Set<UInt64>] = [:]
    private var learning = 0
    /// True once any template is a trap: until then no URL needs its template worked out.
    private(set) var hasTraps = false

    /// Whether `url` belongs to a template judged a trap.
    func isTrapped(_ url: WebURL) -> Bool {
        hasTraps && templates[URLTemplate(url)]?.verdict == .trap
    }

    /// Counts a fetched page of the template of `url`; returns the template and its evidence
    /// when this page settled its verdict. `pageWords`, when given, are counted too.
    mutating func record(_ url: WebURL, duplicate: Bool, pageShingles: [UInt64], pageWords: [UInt64]? = nil,
                         identity: [UInt64] = []) -> (URLTemplate, Evidence)? {
        let template = URLTemplate(url)
        guard template.isVariable else { return nil }
        var evidence: Evidence
        if let known = templates[template] {
            evidence = known
        } else {
            guard learning < Self.maximumLearning else { return nil }
            learning += 1
            evidence = Evidence()
        }
        guard evidence.verdict == .learning else { return nil }
        // Taken out and put back, so that inserting does not copy the set.
        var seen = shingles.removeValue(forKey: template) ?? []
        let new = pageShingles.reduce(0) { $0 + (seen.contains($1) ? 0 : 1) }
        for shingle in pageShingles where seen.count < Self.maximumShingles { seen.insert(shingle) }
        evidence.fetched += 1
        var fewWords = false
        if let pageWords {
            var known = words.removeValue(forKey: template) ?? []
            fewWords = pageWords.reduce(0) { $0 + (known.contains($1) ? 0 : 1) } < Self.newWords
            for word in pageWords where known.count < Self.maximumShingles { known.insert(word) }
            words[template] = known
        }
        var named = false
        if !identity.isEmpty {
            var known = names.removeValue(forKey: template) ?? []
            named = identity.contains { !known.contains($0) }
            for name in identity where known.count < Self.maximumShingles { known.insert(name) }
            names[template] = known
        }
        let stale = duplicate || (!named && (new < Self.newShingles || fewWords))
        if stale {
            evidence.stale += 1
            if duplicate { evidence.duplicates += 1 }
        }
        evidence.recent = (evidence.recent << 1 | (stale ? 1 : 0)) & (1 << Self.sample - 1)
        if evidence.fetched >= Self.sample, evidence.recent.nonzeroBitCount >= Self.trapStale {
            evidence.verdict = .trap
            hasTraps = true
        } else if evidence.fetched >= Self.judgedUntil {
            evidence.verdict = .content
        }
        templates[template] = evidence
        if evidence.verdict == .learning {
            shingles[template] = seen
            return nil
        }
        learning -= 1
        words[template] = nil
        names[template] = nil
        return (template, evidence)
    }
}
