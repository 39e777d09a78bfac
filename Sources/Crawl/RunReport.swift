import Fetch
import Foundation
import JSON
import StoreSeams
import TextUtilities

/// What one crawl run did, written to `crawl-data/runs/<id>.json` and printed.
public struct RunReport: Sendable {
    public struct Host: Sendable {
        public var fetched = 0
        public var indexed = 0
        public var errors = 0
        public var bytes = 0
        /// The host had more URLs than `--max-pages-per-host` allowed this run.
        public var capped = false
        /// Why robots.txt could not be fetched (curl's words), when it could not.
        public var lastError: String?
    }

    public var id: String
    public var started: Date
    public var finished: Date?
    public var fetched = 0
    public var indexed = 0
    /// Items removed: pages now gone, noindex, disallowed, or moved to another canonical.
    public var deleted = 0
    /// Items purged at the start of the run because they were not confirmed in time.
    public var expired = 0
    public var notModified = 0
    public var redirects = 0
    /// URLs not indexed, by reason: `robots`, `noindex`, `duplicate`, `too-large`, `timeout`,
    /// `http-500`, `refused-address`, `out-of-scope`, `not-html`…
    public var skipped: [String: Int] = [:]
    /// The first URLs of a reason whose verdict kept the rule behind it (`invalid-item`:
    /// which field broke which rule), at most ``maximumDetails`` per reason.
    public var details: [String: [Detail]] = [:]
    public var bytes = 0
    public var sitemaps = 0
    public var sitemapURLs = 0
    public var discovered = 0
    public var hosts: [String: Host] = [:]
    /// `finished`, `max-pages`, `max-time` or `signal`.
    public var stoppedBy = "finished"
    /// The signal a run stopped by `signal` was sent (`SIGINT`, `SIGTERM`), when known.
    public var stopSignal: String?
    public var warcFiles: [String] = []
    /// Pages rendered in a browser, the seconds their renders took, renders that failed by
    /// reason (``RenderFailure``), and their requests not fetched by reason.
    public var rendered = 0
    public var renderSeconds = 0.0
    public var renderFailures: [String: Int] = [:]
    public var renderRefused: [String: Int] = [:]
    /// URL templates judged this run (traps, and templates found to be content), at most
    /// ``maximumPatterns``.
    public var patterns: [Pattern] = []
    /// URLs made due at the start by `--refetch`, or because they were refused for a private
    /// address and this run allows them.
    public var refetched = 0
    /// URLs still due when the run ended (left by a limit or a signal).
    public var due = 0
    /// When the next URL falls due after the run.
    public var nextDue: Date?
    /// How long this run's notified and fetched pages took to become searchable.
    public var freshness = CrawlFreshness()

    public static let maximumPatterns = 200
    public static let maximumDetails = 3

    /// One URL's verdict with the rule behind it.
    public struct Detail: Sendable {
        public var url: String
        public var detail: String
    }

    /// Keeps a verdict's rule, up to ``maximumDetails`` per reason.
    mutating func note(_ reason: String, url: String, detail: String) {
        if details[reason, default: []].count < Self.maximumDetails { details[reason, default: []].append(Detail(url: url, detail: detail)) }
    }

    /// What to do about a skip reason the operator can fix, for the summary.
    static let remedies: [String: String] = [
        SkipReason.refusedAddress.label: "the host resolves to a private or loopback address: give --allow-private to crawl it",
        SkipReason.robotsUnreachable.label: "robots.txt could not be fetched, so nothing on the host is (RFC 9309); the error is on the host's line below",
        SkipReason.tooDeep.label: "links past --max-depth were not followed",
        SkipReason.outOfScope.label: "links to other hosts were not followed: --scope domain or more seeds widen the crawl",
        FetchError.Kind.dns.rawValue: "the host names did not resolve: check them, or give again the --resolve HOST:PORT:ADDRESS an earlier run was given",
        FetchError.Kind.connect.rawValue: "nothing answered at the hosts' addresses: check that they are up, or the --resolve an earlier run was given",
    ]

    /// The run could not reach anything it tried: every page or robots.txt it asked for
    /// failed. `crawl` exits 1 then.
    public var reachedNothing: Bool {
        fetched == 0 && notModified == 0
            && (hosts.values.contains { $0.lastError != nil || $0.errors > 0 } || (skipped[SkipReason.refusedAddress.label] ?? 0) > 0)
    }

    /// A URL template's verdict and the evidence for it.
    public struct Pattern: Sendable {
        public var template: String
        /// `trap` or `content`.
        public var verdict: String
        public var fetched: Int
        /// Duplicates, near-duplicates and pages bringing nothing new.
        public var stale: Int
        public var duplicates: Int
    }

    public init(id: String, started: Date) {
        self.id = id
        self.started = started
    }

    public var seconds: Double { (finished ?? Date()).timeIntervalSince(started) }

    /// Keeps a template's verdict, up to ``maximumPatterns`` of them.
    mutating func note(_ pattern: Pattern) {
        if patterns.count < Self.maximumPatterns { patterns.append(pattern) }
    }

    /// Counts what a write added: URLs new to the frontier, items deleted.
    mutating func add(_ written: CrawlWriter.Written) {
        discovered += written.discovered
        deleted += written.deleted
    }

    mutating func skip(_ reason: SkipReason, count: Int = 1) {
        skipped[reason.label, default: 0] += count
    }

    public var json: JSONValue {
        return .object(JSONObject([
            ("id", .string(id)),
            ("started", .string(ISO8601.string(fromSeconds: started.timeIntervalSince1970))),
            ("finished", finished.map { .string(ISO8601.string(fromSeconds: $0.timeIntervalSince1970)) } ?? .null),
            ("seconds", JSONValue((seconds * 1000).rounded() / 1000)),
            ("stoppedBy", .string(stoppedBy)),
            ("stopSignal", stopSignal.map(JSONValue.string) ?? .null),
            ("fetched", JSONValue(fetched)),
            ("indexed", JSONValue(indexed)),
            ("deleted", JSONValue(deleted)),
            ("expired", JSONValue(expired)),
            ("notModified", JSONValue(notModified)),
            ("redirects", JSONValue(redirects)),
            ("skipped", .object(JSONObject(skipped.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }))),
            ("details", .object(JSONObject(details.sorted { $0.key < $1.key }.map { reason, notes in
                (reason, .array(notes.map { ["url": .string($0.url), "detail": .string($0.detail)] }))
            }))),
            ("bytes", JSONValue(bytes)),
            ("pagesPerSecond", JSONValue(seconds > 0 ? (Double(fetched) / seconds * 10).rounded() / 10 : 0)),
            ("sitemaps", JSONValue(sitemaps)),
            ("sitemapURLs", JSONValue(sitemapURLs)),
            ("discovered", JSONValue(discovered)),
            ("hosts", .object(JSONObject(hosts.sorted { $0.key < $1.key }.map { origin, host in
                (origin, ["fetched": JSONValue(host.fetched), "indexed": JSONValue(host.indexed), "errors": JSONValue(host.errors),
                          "bytes": JSONValue(host.bytes), "capped": .bool(host.capped), "error": host.lastError.map(JSONValue.string) ?? .null])
            }))),
            ("refetched", JSONValue(refetched)),
            ("due", JSONValue(due)),
            ("freshness", freshness.json),
            ("nextDue", nextDue.map { .string(ISO8601.string(fromSeconds: $0.timeIntervalSince1970)) } ?? .null),
            ("warcFiles", .array(warcFiles.map(JSONValue.string))),
            ("rendered", JSONValue(rendered)),
            ("renderSeconds", JSONValue((renderSeconds * 1000).rounded() / 1000)),
            ("renderFailures", .object(JSONObject(renderFailures.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }))),
            ("renderRefused", .object(JSONObject(renderRefused.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }))),
            ("patterns", .array(patterns.map { pattern in
                ["template": .string(pattern.template), "verdict": .string(pattern.verdict), "fetched": JSONValue(pattern.fetched),
                 "stale": JSONValue(pattern.stale), "duplicates": JSONValue(pattern.duplicates)]
            })),
        ]))
    }

    /// The report for people.
    public var summary: String {
        var lines = [
            "Crawl \(id): " + (stoppedBy == "signal"
                ? "stopped by \(stopSignal ?? "a signal") after \(String(format: "%.1f", seconds)) s, cleanly: every page fetched is committed"
                : "\(stoppedBy) after \(String(format: "%.1f", seconds)) s"),
            "  fetched \(Plural.count(fetched, "page")) (\(bytes == 0 ? "0 bytes" : ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file))), indexed \(indexed), removed \(deleted), expired \(expired), unchanged \(notModified), redirects \(redirects)",
            "  discovered \(Plural.count(discovered, "new URL")); read \(Plural.count(sitemaps, "sitemap")) listing \(Plural.count(sitemapURLs, "URL"))",
        ]
        if refetched > 0 { lines.append("  made due again at the start: \(Plural.count(refetched, "URL"))") }
        if !skipped.isEmpty {
            lines.append("  skipped: " + skipped.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            for reason in skipped.keys.sorted() { if let remedy = Self.remedies[reason] { lines.append("    \(reason): \(remedy)") } }
            for (reason, notes) in details.sorted(by: { $0.key < $1.key }) {
                for note in notes { lines.append("    \(reason): \(note.url) — \(note.detail)") }
            }
            lines.append("    (searchlight status --urls REASON lists the URLs behind a count)")
        }
        if rendered > 0 || !renderFailures.isEmpty {
            lines.append("  rendered \(Plural.count(rendered, "page")) in a browser (\(String(format: "%.1f", renderSeconds)) s)"
                + (renderFailures.isEmpty ? "" : "; not rendered: " + renderFailures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
                + (renderRefused.isEmpty ? "" : "; their requests not fetched: " + renderRefused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")))
        }
        for pattern in patterns where pattern.verdict == "trap" {
            lines.append("  not followed further: \(pattern.template) (\(pattern.stale) of \(pattern.fetched) pages brought nothing new"
                + (pattern.duplicates > 0 ? ", \(pattern.duplicates) of them duplicates)" : ")"))
        }
        if let freshness = freshness.summary { lines.append("  searchable: \(freshness)") }
        for (origin, host) in hosts.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(origin): fetched \(host.fetched), indexed \(host.indexed)" + (host.errors > 0 ? ", errors \(host.errors)" : "")
                + (host.capped ? ", stopped at the per-host page cap" : "") + (host.lastError.map { "; robots.txt: \($0)" } ?? ""))
        }
        if due > 0 {
            lines.append("  left: \(Plural.count(due, "URL")) still due; the next run goes on from here")
        } else if let nextDue {
                lines.append("  nothing else is due; the next URL falls due at \(ISO8601.string(fromSeconds: nextDue.timeIntervalSince1970))"
                + (fetched == 0 ? " (crawl --refetch-all fetches everything now)" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
