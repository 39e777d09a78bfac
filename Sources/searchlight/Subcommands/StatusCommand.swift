import Crawl
import EmbeddedStore
import Foundation
import JSON
import StoreSeams
import TextUtilities

/// `searchlight status [--data DIR] [--runs N] [--json]`
struct StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        abstract: "Show what the data folder holds: index, frontier, the running crawl and the last runs.",
        discussion: """
            Items in the index (by source, and how many have expired), URLs the frontier knows
            and how many are due, failing, gone or excluded, on how many hosts; whether a crawl
            run holds the folder now, and since when; and the summaries of the last runs from
            DIR/runs. Reads only, so it is safe while a crawl runs.

            With --urls REASON: the URLs behind a skip count (`http-404`, `refused-address`,
            `robots`, `trap-pattern`, `timeout`…, or `all`), each with its state, last status,
            last attempt and next due time, and how many URLs each reason holds.
            """,
        options: [
            DataDirectory.option,
            StoreOption.option,
            Option.runs.spec,
            Option.urls,
            Option.limit.spec,
            Option.json,
        ],
        examples: ["searchlight status", "searchlight status --urls http-404", "searchlight status --data /srv/searchlight/crawl-data --json"])

    var data: DataDirectory
    var store: StoreOption
    var runs: Int
    /// `--urls`: nil for the overview, "" for every reason.
    var urls: String?
    var limit: Int
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        data = DataDirectory(arguments)
        store = try StoreOption(arguments)
        runs = try arguments.value(Option.runs)
        if let reason = arguments.value(Option.urls) {
            guard reason == "all" || (1...64).contains(reason.utf8.count) && reason.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw UsageError("--urls takes a skip reason as a run report names it (http-404, refused-address…) or all")
            }
            urls = reason == "all" ? "" : reason
        }
        limit = try arguments.value(Option.limit)
        json = arguments.flag(Option.json)
    }

    func run() throws {
        if let reason = urls {
            try listURLs(reason: reason.isEmpty ? nil : reason)
            return
        }
        if let shared = try store.open() {
            let status = try shared.status(dataDirectory: data.path, runs: runs)
            Console.write(json ? JSONWriter.string(status.json, style: .pretty) + "\n" : status.summary)
            return
        }
        guard FileManager.default.fileExists(atPath: data.path) else {
            throw CommandFailure("no data folder at \(data.path): run `searchlight crawl` first, or give --data")
        }
        let status = try CrawlStatus.read(dataDirectory: data.path, runs: runs)
        Console.write(json ? JSONWriter.string(status.json, style: .pretty) + "\n" : status.summary)
    }
}

extension StatusCommand {
    private func listURLs(reason: String?) throws {
        let found: (rows: [FrontierRow], counts: [String: Int])
        if let shared = try store.open() {
            found = try shared.urls(reason: reason, limit: limit)
        } else {
            guard FileManager.default.fileExists(atPath: data.path) else {
                throw CommandFailure("no data folder at \(data.path): run `searchlight crawl` first, or give --data")
            }
            found = try CrawlStatus.urls(dataDirectory: data.path, reason: reason, limit: limit)
        }
        if json {
            let rows = JSONValue.array(found.rows.map { row in
                .object(JSONObject([
                    ("url", .string(row.url)), ("state", .string(row.state)), ("reason", row.reason.map(JSONValue.string) ?? .null),
                    ("status", row.status.map { JSONValue($0) } ?? .null),
                    ("lastAttempt", row.lastAttempt.map { .string(ISO8601.string(fromSeconds: $0.timeIntervalSince1970)) } ?? .null),
                    ("due", .string(ISO8601.string(fromSeconds: row.due.timeIntervalSince1970))),
                    ("detail", row.detail.map(JSONValue.string) ?? .null),
                ]))
            })
            let counts = JSONValue.object(JSONObject(found.counts.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }))
            Console.write(JSONWriter.string(["urls": rows, "reasons": counts], style: .pretty) + "\n")
            return
        }
        if let reason, found.counts[reason] == nil, !SkipReason.isKnown(reason) {
            let present = found.counts.sorted { $0.value > $1.value }.prefix(8).map { "\($0.key) (\($0.value))" }
            let guess = Suggestion.nearest(to: reason, in: Array(found.counts.keys) + SkipReason.knownLabels).map { " (did you mean \($0)?)" } ?? ""
            throw UsageError("--urls: no run report names '\(reason)'\(guess); "
                + (present.isEmpty ? "this folder has no skipped URLs yet" : "this folder's reasons: " + present.joined(separator: ", ")) + ", or all")
        }
        let total = reason.map { found.counts[$0] ?? 0 } ?? found.counts.values.reduce(0, +)
        Console.writeLine("\(total) \(total == 1 ? "URL" : "URLs") " + (reason.map { "skipped as \($0)" } ?? "with a skip reason")
            + (found.rows.count < total ? " (the first \(found.rows.count); --limit shows more)" : ""))
        for row in found.rows {
            let attempt = row.lastAttempt.map { ISO8601.string(fromSeconds: $0.timeIntervalSince1970) } ?? "never fetched"
            Console.writeLine("  \(row.url)  \(row.state)" + (row.reason.map { " \($0)" } ?? "") + (row.status.map { ", status \($0)" } ?? "")
                + ", last attempt \(attempt), due \(ISO8601.string(fromSeconds: row.due.timeIntervalSince1970))")
            if let detail = row.detail { Console.writeLine("    \(detail)") }
        }
        if !found.counts.isEmpty {
            Console.writeLine("By reason: " + found.counts.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
                .map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
    }

    /// The options this command reads.
    enum Option {
        static let urls = OptionSpec.value("--urls", "reason", help: "List the URLs skipped for this reason (or all), with their last attempt and next due time.")
        static let limit = Setting.whole("--limit", help: "With --urls: list at most this many", in: 1...1_000_000, default: 100)
        static let runs = Setting.whole("--runs", help: "Show this many of the last runs", in: 0...1000, default: 5)
        static let json = OptionSpec.flag("--json", help: "Print the status as JSON.")
    }
}
